// Fetching a task's input files, as a real gateway does before it starts:
// every frame and reference video URL is downloaded (bounded in time and
// size) and its first bytes must be what the model takes (an image for a
// frame, a video for a reference). The first one that fails fails the task.
import type { SimulatedModel } from "./pricing";

export type InputFetch = { taskId: string; field: string; url: string; status: number | string; bytes: number; ok: boolean; message: string | null; at: number };

const FIELDS: Record<SimulatedModel["kind"], { name: string; kind: "image" | "video" }[]> = {
  "text-to-video": [],
  "first-last-frame": [
    { name: "first_frame_url", kind: "image" },
    { name: "last_frame_url", kind: "image" },
  ],
  "reference-to-video": [{ name: "reference_video_urls", kind: "video" }],
};

const TIMEOUT_MS = 20_000;
const MAX_BYTES = 500 * 1024 * 1024;

/** Downloads every input; resolves with the records and the first failure's message (null: all fetched and of the right kind). */
export async function fetchInputs(taskId: string, model: SimulatedModel, input: Record<string, unknown>): Promise<{ fetches: InputFetch[]; failure: string | null }> {
  const fetches: InputFetch[] = [];
  for (const { name, kind } of FIELDS[model.kind]) {
    const value = input[name];
    const urls = Array.isArray(value) ? value : [value];
    for (const [index, url] of urls.entries()) {
      const field = Array.isArray(value) ? `${name}[${index}]` : name;
      const record = await fetchOne(String(url), kind);
      fetches.push({ taskId, field, url: String(url), ...record, at: Date.now() });
      if (!record.ok) return { fetches, failure: `Could not use input ${field}: ${record.message}` };
    }
  }
  return { fetches, failure: null };
}

async function fetchOne(url: string, kind: "image" | "video"): Promise<{ status: number | string; bytes: number; ok: boolean; message: string | null }> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { "User-Agent": "framehook-simulator input fetch" } });
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    return { status: "error", bytes: 0, ok: false, message: `the URL could not be fetched (${reason}).` };
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, bytes: 0, ok: false, message: `fetching it answered HTTP ${response.status}.` };
  }
  let bytes = 0;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      if (head.length < 16) head = Buffer.concat([head, Buffer.from(chunk).subarray(0, 16 - head.length)]);
      if (bytes > MAX_BYTES) return { status: 200, bytes, ok: false, message: `the file is larger than ${MAX_BYTES} bytes.` };
    }
  } catch (error) {
    return { status: 200, bytes, ok: false, message: `the download was cut (${error instanceof Error ? error.message : String(error)}).` };
  }
  const found = kindOf(head);
  if (found !== kind) return { status: 200, bytes, ok: false, message: `the file is ${found === null ? "neither an image nor a video" : found === "image" ? "an image" : "a video"}; this model takes ${kind === "image" ? "an image" : "a video"} there.` };
  return { status: 200, bytes, ok: true, message: null };
}

function kindOf(head: Buffer): "image" | "video" | null {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString("latin1");
  if (ascii(1, 4) === "PNG" || (head[0] === 0xff && head[1] === 0xd8) || (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP")) return "image";
  if (ascii(4, 8) === "ftyp" || head.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return "video";
  return null;
}
