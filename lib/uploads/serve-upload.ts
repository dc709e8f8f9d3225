// Serves an uploaded input's bytes: to its owner (the form's preview) and to
// the gateway through a signed link. Only ever as the type sniffed from its
// bytes, never as a document: nosniff, a sandbox, and a file name.
import "server-only";
import { Readable } from "node:stream";
import { AppError } from "@/lib/errors";
import { parseRange } from "@/lib/copies/serve-media";
import { getMediaStorage } from "@/lib/storage/storage";
import type { Upload } from "./upload-store";

export async function serveUpload({ upload, request }: { upload: Upload; request: Request }): Promise<Response> {
  const storage = await getMediaStorage();
  if (!storage) throw new AppError("not_found", "No such upload.");
  const etag = `"${upload.sha256}"`;
  const headers: Record<string, string> = {
    "Content-Type": upload.contentType,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'",
    "Content-Disposition": `inline; filename="${upload.id}.${upload.format}"`,
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, max-age=3600",
    ETag: etag,
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  const range = parseRange(request.headers.get("range"), upload.size);
  if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${upload.size}` } });
  const head = request.method === "HEAD";
  const object = head ? null : await storage.get({ key: upload.storageKey, range: range ?? undefined });
  if (!head && !object) throw new AppError("not_found", "The uploaded file is missing.");
  const body = object ? (Readable.toWeb(object.body) as ReadableStream<Uint8Array>) : null;
  if (range) {
    return new Response(body, { status: 206, headers: { ...headers, "Content-Range": `bytes ${range.start}-${range.end}/${upload.size}`, "Content-Length": String(range.end - range.start + 1) } });
  }
  return new Response(body, { status: 200, headers: { ...headers, "Content-Length": String(upload.size) } });
}
