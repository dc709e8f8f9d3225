// An uploaded video's container, read and rewritten without FFmpeg: mediabunny
// (pure JavaScript, from npm) runs on worker threads
// (video-container-worker.mjs), never on the thread that answers requests,
// and below its CPU priority (each worker thread at nice 10, on Linux).
// Each call takes a slot of the instance's media pool (mediaPool(): callers
// must not wrap it in another), and is bounded in time (past it the worker is
// terminated and the call throws the pool's busy error, which says nothing
// about the file), in input size (checked before the worker is asked) and in
// memory (the worker's heap is capped). This module keeps a few idle workers
// for reuse (starting one costs 0.1–2 s on a busy 2-core machine) and starts
// another when all are busy.
import "server-only";
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { FORMAT_LABEL, formatSeconds, type MediaFacts, type VideoFormat } from "@/lib/models/media-limits";
import { mediaBusy, mediaPool } from "./media-pool";

/** Above every video field's limit (100 MB): a larger file is refused before a worker reads a byte of it. */
export const MAX_CONTAINER_BYTES = 128 * 1024 * 1024;
export const PROBE_TIMEOUT_MS = 20_000;
export const REMUX_TIMEOUT_MS = 30_000;
/** Idle workers kept for the next call; more run while calls overlap. */
const MAX_IDLE_WORKERS = 2;
/** Each worker's JavaScript heap, in MB: packets are streamed, so a 100 MB file needs far less. */
const WORKER_HEAP_MB = 192;

export type ContainerProbe = {
  /** Coded size of the first video track, before its rotation (as ffprobe reports width and height). */
  width: number;
  height: number;
  /** Clockwise degrees a player turns the picture. */
  rotation: 0 | 90 | 180 | 270;
  /** FFmpeg's names where they differ ("h264", "hevc", "vp9", "av1"). */
  codec: string;
  /** FFmpeg's name for the container family ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"). */
  container: string;
  /** The longest duration the headers claim; from the packets when they claim none. */
  durationSeconds: number | null;
  /** Packets per second of the packets present. */
  fps: number | null;
  /** Video packets actually present, each read through: what the file holds, whatever its header claims. */
  packets: number;
  audioCodec: string | null;
};

export type RemuxResult = { bytes: number; videoPackets: number; audioPackets: number; sha256: string };

export type ContainerRefusal = {
  ok: false;
  /**
   * `unreadable`: not a container of the expected format; `no_video`: no video
   * track; `codec`: a track the output format cannot hold without re-encoding;
   * `too_large`: over the input bound; `damaged`: reading or writing failed
   * part-way, or the worker died on it (out of its heap).
   */
  reason: "unreadable" | "no_video" | "codec" | "too_large" | "damaged";
  message: string;
};

export type ContainerOutcome<T> = ({ ok: true } & T) | ContainerRefusal;

/**
 * The first video track's facts, the packets present counted by reading them
 * through (no decoding). Throws the media pool's busy error when no slot came
 * in time or the read outlived `timeoutMs`.
 */
export async function probeVideoContainer({
  file,
  format,
  timeoutMs = PROBE_TIMEOUT_MS,
  maxInputBytes = MAX_CONTAINER_BYTES,
}: {
  file: string;
  format: VideoFormat;
  timeoutMs?: number;
  maxInputBytes?: number;
}): Promise<ContainerOutcome<ContainerProbe>> {
  return runTask<ContainerProbe>({ op: "probe", file, format, maxInputBytes }, file, timeoutMs);
}

/**
 * Writes `input` anew to `output` as `format` by copying the packets of its
 * first video track and first audio track: no metadata, no other tracks,
 * nothing appended, MP4/QuickTime with the index first. Never re-encodes: a
 * track the format cannot hold is refused (`codec`). Throws the media pool's
 * busy error as probeVideoContainer does.
 */
export async function remuxVideoContainer({
  input,
  output,
  format,
  timeoutMs = REMUX_TIMEOUT_MS,
  maxInputBytes = MAX_CONTAINER_BYTES,
}: {
  input: string;
  output: string;
  format: VideoFormat;
  timeoutMs?: number;
  maxInputBytes?: number;
}): Promise<ContainerOutcome<RemuxResult>> {
  try {
    const outcome = await runTask<RemuxResult>({ op: "remux", input, output, format, maxInputBytes }, input, timeoutMs);
    if (!outcome.ok) await fs.promises.rm(output, { force: true });
    return outcome;
  } catch (error) {
    await fs.promises.rm(output, { force: true });
    throw error;
  }
}

/**
 * A probed clip's facts for an upload, or why it is refused, in the words
 * the upload route uses: more than `maxPixels`, or a header that claims more
 * time than the packets present fill (a forged or truncated file).
 */
export function videoFactsFromProbe({ probe, format, size, maxPixels }: { probe: ContainerProbe; format: VideoFormat; size: number; maxPixels: number }):
  | { ok: true; facts: MediaFacts & { codec: string } }
  | { ok: false; message: string } {
  if (probe.width * probe.height > maxPixels) return { ok: false, message: `This clip claims ${probe.width} × ${probe.height} px; that is more than any model takes.` };
  if (probe.packets === 0) return { ok: false, message: `This ${FORMAT_LABEL[format]} file cannot be read as a video: it is damaged or truncated.` };
  const held = probe.fps ? probe.packets / probe.fps : null;
  let durationSeconds = probe.durationSeconds;
  if (held !== null && durationSeconds !== null) {
    const frame = 1 / probe.fps!;
    if (held + 2 * frame < durationSeconds * 0.9) {
      return { ok: false, message: `This clip's header says ${formatSeconds(durationSeconds)}, but it holds ${formatSeconds(held)} of frames: the file is damaged or truncated.` };
    }
    durationSeconds = Math.max(durationSeconds, held);
  } else if (durationSeconds === null) durationSeconds = held;
  return { ok: true, facts: { format, size, width: probe.width, height: probe.height, durationSeconds, fps: probe.fps, codec: probe.codec } };
}

/** The message for a refused probe or remux, in the upload route's words. */
export function containerRefusalMessage(refusal: ContainerRefusal, format: VideoFormat): string {
  const label = FORMAT_LABEL[format];
  switch (refusal.reason) {
    case "unreadable":
    case "no_video":
      return `This ${label} file cannot be read as a video: it is damaged or truncated.`;
    case "codec":
      return `This ${label} file's ${refusal.message.includes("audio") ? "sound" : "video"} cannot be kept without re-encoding it: upload an H.264 or H.265 MP4, or a VP8/VP9/AV1 WebM.`;
    case "too_large":
      return `This ${label} file is too large to read.`;
    default:
      return `This ${label} file is damaged: it could not be read through.`;
  }
}

/**
 * Starts an idle worker ahead of the first call (at the server's start), so
 * the first upload does not wait for one; resolves once it has loaded.
 */
export async function warmVideoContainerWorker(): Promise<void> {
  if (idle.length > 0) return;
  const worker = startWorker();
  const started = await new Promise<boolean>((resolve) => {
    worker.once("message", () => resolve(true));
    worker.once("exit", () => resolve(false));
  });
  if (!started) return;
  worker.unref();
  idle.push(worker);
}

/** Terminates the idle workers (tests and shutdown; a busy worker ends with its call). */
export async function closeVideoContainerWorkers(): Promise<void> {
  const workers = idle.splice(0);
  await Promise.all(workers.map((worker) => worker.terminate()));
}

/** Workers alive now, idle and busy, for tests and the doctor. */
export const videoContainerWorkerCount = () => ({ idle: idle.length, busy: busy.size });

/** The idle workers' thread ids (Linux; null where unknown), for tests: each has lowered its own priority. */
export const idleWorkerThreadIds = () => idle.map((worker) => threadIds.get(worker) ?? null);

type Task = { op: "probe"; file: string; format: VideoFormat; maxInputBytes: number } | { op: "remux"; input: string; output: string; format: VideoFormat; maxInputBytes: number };
type Answer = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { reason: ContainerRefusal["reason"]; message: string } };

const idle: Worker[] = [];
const busy = new Set<Worker>();
/** Each worker's thread id, from its first message (video-container-worker.mjs lowers that thread's priority). */
const threadIds = new WeakMap<Worker, number | null>();
let nextId = 1;

function startWorker(): Worker {
  // A URL relative to this module: Node, Vitest and tsx load the file beside
  // it; Next's bundler sees the same expression and emits the worker as an
  // entry of its own.
  const worker = new Worker(new URL("./video-container-worker.mjs", import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  worker.on("error", () => undefined);
  worker.once("message", (ready: { tid?: number | null }) => threadIds.set(worker, ready.tid ?? null));
  return worker;
}

async function runTask<T>(task: Task, file: string, timeoutMs: number): Promise<ContainerOutcome<T>> {
  const label = FORMAT_LABEL[task.format];
  let size: number;
  try {
    size = (await fs.promises.stat(file)).size;
  } catch {
    return { ok: false, reason: "unreadable", message: `No file to read at ${file}` };
  }
  if (size > task.maxInputBytes) return { ok: false, reason: "too_large", message: `This ${label} file is ${size} bytes; at most ${task.maxInputBytes} are read.` };

  return mediaPool().run(() => inWorker<T>(task, label, timeoutMs));
}

async function inWorker<T>(task: Task, label: string, timeoutMs: number): Promise<ContainerOutcome<T>> {
  const worker = idle.pop() ?? startWorker();
  busy.add(worker);
  worker.ref();
  const id = nextId++;
  const answer = await new Promise<Answer | "timeout" | "died">((resolve) => {
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    const onMessage = (message: Answer) => {
      if (message.id === id) finish(message);
    };
    const onExit = () => finish("died");
    function finish(result: Answer | "timeout" | "died") {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("exit", onExit);
      resolve(result);
    }
    worker.on("message", onMessage);
    worker.on("exit", onExit);
    worker.postMessage({ ...task, id });
  });
  busy.delete(worker);

  if (answer === "timeout" || answer === "died") {
    // A worker cut mid-task may hold anything: it is never reused.
    await worker.terminate();
    // Past its time the server is too loaded to say anything about the file.
    if (answer === "timeout") throw mediaBusy();
    return { ok: false, reason: "damaged", message: `Reading this ${label} file stopped the worker (out of memory?).` };
  }
  if (idle.length < MAX_IDLE_WORKERS) {
    worker.unref();
    idle.push(worker);
  } else void worker.terminate();
  if (!answer.ok) return { ok: false, reason: answer.error.reason, message: answer.error.message };
  return { ok: true, ...(answer.result as T) };
}
