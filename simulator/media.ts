// Result files: the committed sample clips, served under each task's result
// URL with byte ranges (so a <video> can seek) until the URL expires (410).
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import type { SimulatedGateway } from "./gateway";
import { errorReply, methodNotAllowed, type Reply } from "./http";

const MEDIA_DIR = path.join(import.meta.dirname, "media");

export function serveMedia(gateway: SimulatedGateway, req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Reply | null {
  if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET, HEAD");
  const match = pathname.match(/^\/media\/([^/]+)\/(sample-\d\.mp4)$/);
  const task = match ? gateway.tasks.get(match[1]!) : undefined;
  if (!match || !task || task.state !== "SUCCESS" || !task.resultUrls.some((u) => u.endsWith(pathname))) {
    return errorReply(404, "not_found", "No such result.");
  }
  if (gateway.resultExpired(task)) return errorReply(410, "result_expired", "This result URL has expired.");
  const file = path.join(MEDIA_DIR, match[2]!);
  const size = fs.statSync(file).size;
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
  if (req.method === "HEAD") res.end();
  else fs.createReadStream(file, { start, end }).pipe(res);
  return null;
}

/** One `bytes=` range (the form browsers send); anything else is served whole. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const range = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!range || (!range[1] && !range[2])) return null;
  const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
  const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (start > end || start >= size) return "unsatisfiable";
  return { start, end };
}
