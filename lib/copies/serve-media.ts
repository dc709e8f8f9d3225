// Serves a stored copy at /api/media/{id} (and a shared one at
// /v/{token}/video): from the local disk with byte ranges (a <video> seeks
// with them), a strong ETag and caching; from S3 by a redirect to a
// short-lived presigned (or public) URL. Served from our own
// origin, so the response may never be read as a page: nosniff and a sandbox.
import "server-only";
import { Readable } from "node:stream";
import { prisma } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { visibleTo, type OwnerScope } from "@/lib/generations/visibility";
import { backfillStill, STILL_CONTENT_TYPE } from "./stills";
import { getMediaStorage, type ByteRange } from "@/lib/storage/storage";

const SAFETY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'",
};

/**
 * Who a copy is served to, which decides how long anything may keep it: its
 * owner (their browser caches it for a day, and a bucket's link for a
 * minute), or anyone holding a public link (nothing may keep it, so that
 * "Stop sharing" takes effect at the next request; a bucket's link is signed
 * for one minute).
 */
export type CopyAudience = "owner" | "public";

const CACHING: Record<CopyAudience, { bytes: string; redirect: string; redirectSeconds?: number }> = {
  owner: { bytes: "private, max-age=86400", redirect: "private, max-age=60" },
  public: { bytes: "no-store", redirect: "no-store", redirectSeconds: 60 },
};

/** The columns of a copy its bytes are served from. */
export type ServedCopy = { state: string; storageKey: string; contentType: string | null; size: number | null; sha256: string | null };
export type ServedStill = { id: string; state: string; storageKey: string; sha256: string | null; stillKey: string | null; stillCheckedAt: Date | null };

export async function serveStoredMedia({ id, request, owner }: { id: string; request: Request; owner: OwnerScope }): Promise<Response> {
  // Another owner's copy answers like a missing one: the same 404, no existence leak.
  const copy = await prisma.mediaCopy.findFirst({ where: { id, generation: visibleTo(owner) }, select: { state: true, storageKey: true, contentType: true, size: true, sha256: true } });
  return serveCopy({ copy, request, audience: "owner" });
}

/** A copy's bytes (ranges, ETag) from the local disk, or a redirect to its bucket; 404 when it is not stored. */
export async function serveCopy({ copy, request, audience }: { copy: ServedCopy | null; request: Request; audience: CopyAudience }): Promise<Response> {
  const storage = await getMediaStorage();
  if (!storage || copy?.state !== "DONE" || copy.size === null) throw new AppError("not_found", "No such stored media.");
  const caching = CACHING[audience];

  const redirect = await storage.url({ key: copy.storageKey, expiresSeconds: caching.redirectSeconds });
  if (redirect) {
    // The presigned URL outlives this answer, so the browser may reuse it briefly.
    return new Response(null, { status: 302, headers: { Location: redirect, "Cache-Control": caching.redirect } });
  }

  const etag = `"${copy.sha256 ?? copy.size}"`;
  const contentType = copy.contentType ?? "application/octet-stream";
  const headers: Record<string, string> = {
    ...SAFETY_HEADERS,
    "Content-Type": contentType,
    // A copy whose bytes are not media (a playlist, a page, anything) is only ever a download.
    ...(/^(video|audio|image)\//.test(contentType) ? {} : { "Content-Disposition": "attachment" }),
    "Accept-Ranges": "bytes",
    // The bytes under an id never change (a retried copy writes the same file); CACHING says who may keep them.
    "Cache-Control": caching.bytes,
    ETag: etag,
  };
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });

  const size = copy.size;
  const ifRange = request.headers.get("if-range");
  const range = !ifRange || ifRange === etag ? parseRange(request.headers.get("range"), size) : null;
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${size}` } });
  }
  const head = request.method === "HEAD";
  const object = head ? null : await storage.get({ key: copy.storageKey, range: range ?? undefined });
  if (!head && !object) throw new AppError("not_found", "The stored media is missing.");
  const body = object ? (Readable.toWeb(object.body) as ReadableStream<Uint8Array>) : null;
  if (range) {
    const { start, end } = range;
    return new Response(body, {
      status: 206,
      headers: { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": String(end - start + 1) },
    });
  }
  return new Response(body, { status: 200, headers: { ...headers, "Content-Length": String(size) } });
}

/**
 * Serves a stored copy's still at /api/media/{id}/still, with the same owner
 * scoping and headers as the copy; a copy stored before stills existed gets
 * its still made on this first request. 404 when the video has none.
 */
export async function serveStoredStill({ id, request, owner }: { id: string; request: Request; owner: OwnerScope }): Promise<Response> {
  const copy = await prisma.mediaCopy.findFirst({
    where: { id, generation: visibleTo(owner) },
    select: { id: true, state: true, storageKey: true, sha256: true, stillKey: true, stillCheckedAt: true },
  });
  return serveStill({ copy, request, audience: "owner" });
}

export async function serveStill({ copy, request, audience }: { copy: ServedStill | null; request: Request; audience: CopyAudience }): Promise<Response> {
  const storage = await getMediaStorage();
  if (!storage || copy?.state !== "DONE") throw new AppError("not_found", "No such stored media.");
  const stillKey = copy.stillKey ?? (copy.stillCheckedAt === null ? await backfillStill({ copy, storage }) : null);
  if (!stillKey) throw new AppError("not_found", "This video has no still image.");
  const caching = CACHING[audience];

  const redirect = await storage.url({ key: stillKey, expiresSeconds: caching.redirectSeconds });
  if (redirect) return new Response(null, { status: 302, headers: { Location: redirect, "Cache-Control": caching.redirect } });

  // A still is derived from the copy's bytes (its sha256) and the extraction, which is the same every time.
  const etag = `"still-${copy.sha256 ?? copy.id}"`;
  const headers: Record<string, string> = { ...SAFETY_HEADERS, "Content-Type": STILL_CONTENT_TYPE, "Cache-Control": caching.bytes, ETag: etag };
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  const object = await storage.get({ key: stillKey });
  if (!object) throw new AppError("not_found", "The stored still is missing.");
  const body = request.method === "HEAD" ? null : (Readable.toWeb(object.body) as ReadableStream<Uint8Array>);
  if (!body) object.body.destroy();
  return new Response(body, { status: 200, headers: { ...headers, "Content-Length": String(object.size) } });
}

function matches(header: string | null, etag: string): boolean {
  return !!header && (header.trim() === "*" || header.split(/\s*,\s*/).some((tag) => tag.replace(/^W\//, "") === etag));
}

/** One `bytes=` range (what browsers send); several ranges, or none, get the whole file. */
export function parseRange(header: string | null, size: number): ByteRange | "unsatisfiable" | null {
  const range = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!range || (!range[1] && !range[2])) return null;
  if (!range[1]) {
    const suffix = Number(range[2]);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(range[1]);
  const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (start > end || start >= size) return "unsatisfiable";
  return { start, end };
}
