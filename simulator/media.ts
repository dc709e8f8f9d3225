// Result files: real-size clips or the committed samples (clips.ts), or for a
// scenario's `media.sizeBytes` a file generated on the fly (or its `media.body`), served under each
// task's result URL with byte ranges (so a <video> can seek) until the URL
// expires (410). A scenario's `media` options make downloads slow, failing,
// cut short or redirected.
import fs from "node:fs";
import type http from "node:http";
import { Readable } from "node:stream";
import { errorReply, methodNotAllowed, sleep, type Reply } from "./http";
import type { SimulatorState } from "./state";

const BLOCK = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 31 + 7) % 251));

export type MediaRecord = { taskId: string; method: string; status: number; range: string | null; bytes: number; at: number };

export async function serveMedia(state: SimulatorState, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<Reply | null> {
  if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET, HEAD");
  const { gateway } = state;
  const match = url.pathname.match(/^\/media\/([^/]+)\/([a-z0-9-]+\.mp4)$/);
  const task = match ? gateway.tasks.get(match[1]!) : undefined;
  if (!match || !task || task.state !== "SUCCESS" || !task.resultUrls.some((u) => u.endsWith(url.pathname))) {
    return errorReply(404, "not_found", "No such result.");
  }
  const record: MediaRecord = { taskId: task.taskId, method: req.method, status: 0, range: req.headers.range ?? null, bytes: 0, at: Date.now() };
  state.media.push(record);
  if (state.media.length > 10_000) state.media.shift();
  res.once("close", () => (record.status = res.headersSent ? res.statusCode : 0));

  if (gateway.resultExpired(task)) return errorReply(410, "result_expired", "This result URL has expired.");
  const options = task.scenario?.media ?? {};
  const served = state.media.filter((r) => r.taskId === task.taskId && r.method === "GET").length;
  const failing = req.method === "GET" && (options.failTimes === undefined || served <= options.failTimes);
  await sleep(options.latencyMs ?? 0);
  if (options.redirectTo && !url.searchParams.has("redirected")) {
    const location = options.redirectTo === "self" ? `${url.pathname}?redirected=1` : options.redirectTo;
    return { status: 302, body: { code: "found", message: "Moved." }, headers: { Location: location } };
  }
  if (failing && options.status) return errorReply(options.status, "media_error", `Simulated download error ${options.status}.`);

  const chosen = options.body === undefined ? null : Buffer.from(options.body, "utf8");
  const file = options.sizeBytes || chosen ? null : await state.clips.file(match[2]!);
  if (!file && !options.sizeBytes && !chosen) return errorReply(404, "not_found", "No such result.");
  const size = chosen?.length ?? options.sizeBytes ?? (file ? fs.statSync(file).size : 0);
  const headers: Record<string, string | number> = {
    "Content-Type": "video/mp4",
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, max-age=3600",
    "Access-Control-Allow-Origin": "*",
  };
  const range = parseRange(req.headers.range, size);
  if (range === "unsatisfiable") {
    return errorReply(416, "range_not_satisfiable", `The file has ${size} bytes.`, {}, { "Content-Range": `bytes */${size}` });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (range) res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": end - start + 1 });
  else res.writeHead(200, { ...headers, "Content-Length": size });
  if (req.method === "HEAD") {
    res.end();
    return null;
  }
  const body = chosen ? Readable.from([chosen.subarray(start, end + 1)]) : file ? fs.createReadStream(file, { start, end }) : generated(start, end);
  const cutAfter = failing ? options.truncateAfterBytes : undefined;
  record.bytes = await send(res, body, { bytesPerSecond: options.bytesPerSecond, cutAfter });
  return null;
}

/** Writes `body` with backpressure, paced to `bytesPerSecond`; after `cutAfter` bytes, cuts the connection. */
async function send(res: http.ServerResponse, body: Readable, { bytesPerSecond, cutAfter }: { bytesPerSecond?: number; cutAfter?: number }) {
  const started = Date.now();
  let sent = 0;
  try {
    for await (const chunk of paced(body, bytesPerSecond)) {
      const cut = cutAfter !== undefined && sent + chunk.length >= cutAfter;
      const piece = cut ? chunk.subarray(0, cutAfter - sent) : chunk;
      if (res.destroyed) break;
      const flushed = new Promise<void>((resolve) => res.write(piece, () => resolve()));
      sent += piece.length;
      if (cut) {
        await flushed;
        res.destroy();
        break;
      }
      if (res.writableNeedDrain) await drained(res);
      if (bytesPerSecond) await sleep(started + (sent / bytesPerSecond) * 1000 - Date.now());
    }
  } finally {
    body.destroy();
  }
  if (!res.destroyed) res.end();
  return sent;
}

/**
 * The body in pieces of at most a twentieth of a second's worth when paced, so
 * that a slow download trickles evenly as a slow host's does, rather than in
 * 64 KB bursts with long silences between them.
 */
async function* paced(body: Readable, bytesPerSecond: number | undefined): AsyncGenerator<Buffer> {
  const most = bytesPerSecond ? Math.max(1, Math.floor(bytesPerSecond / 20)) : Infinity;
  for await (const data of body) {
    const chunk = data as Buffer;
    for (let at = 0; at < chunk.length; at += most) yield chunk.subarray(at, at + most);
  }
}

function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** The bytes start..end of a generated file: a repeating block, so a large file costs no memory. */
function generated(start: number, end: number): Readable {
  return Readable.from(
    (function* () {
      for (let at = start; at <= end; ) {
        const offset = at % BLOCK.length;
        const length = Math.min(BLOCK.length - offset, end - at + 1);
        yield BLOCK.subarray(offset, offset + length);
        at += length;
      }
    })(),
  );
}

/** The generated file's bytes, for tests that check a copy: byte i of a file of any size. */
export const generatedByte = (i: number) => BLOCK[i % BLOCK.length]!;

/** One `bytes=` range (the form browsers send); anything else is served whole. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const range = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!range || (!range[1] && !range[2])) return null;
  const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
  const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (start > end || start >= size) return "unsatisfiable";
  return { start, end };
}
