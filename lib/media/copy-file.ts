// One copy: the gateway's file streamed into storage, counted, capped and
// hashed on the way, and refused as incomplete when fewer bytes arrive than
// the gateway announced. Nothing is held in memory beyond a stream's buffers.
import "server-only";
import { createHash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DownloadError, openDownload } from "./safe-download";
import type { MediaStorage } from "./storage";

export type CopiedFile = { size: number; sha256: string; contentType: string };

export async function copyFile({
  sourceUrl,
  key,
  storage,
  trustedOrigin,
  maxBytes,
  signal,
}: {
  sourceUrl: string;
  key: string;
  storage: MediaStorage;
  trustedOrigin: string | null;
  maxBytes: number;
  signal?: AbortSignal;
}): Promise<CopiedFile> {
  const download = await openDownload({ url: sourceUrl, trustedOrigin, maxBytes, signal });
  const meter = new Meter(download.length, maxBytes);
  const contentType = mediaContentType(download.contentType, sourceUrl);
  // pipeline passes a cut connection (an error or a premature close) on to
  // the meter, which fails the upload: nothing incomplete is stored.
  const piping = pipeline(download.body, meter).catch((error: unknown) => {
    throw error instanceof DownloadError ? error : new DownloadError(`The download was cut short after ${meter.bytes} bytes.`, false);
  });
  try {
    await Promise.all([storage.put({ key, body: meter, contentType }), piping]);
  } finally {
    download.body.destroy();
  }
  return { size: meter.bytes, sha256: meter.hash.digest("hex"), contentType };
}

class Meter extends Transform {
  bytes = 0;
  readonly hash = createHash("sha256");

  constructor(
    private readonly expected: number | null,
    private readonly maxBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return done(new DownloadError(`The file is larger than the ${this.maxBytes}-byte limit.`, true));
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback) {
    // A connection closed early can look like a clean end: count before calling it complete.
    if (this.expected !== null && this.bytes !== this.expected) {
      return done(new DownloadError(`The download was cut short: ${this.bytes} of ${this.expected} bytes.`, false));
    }
    if (this.bytes === 0) return done(new DownloadError("The gateway's link served an empty file.", false));
    done();
  }
}

const BY_EXTENSION: Record<string, string> = { mp4: "video/mp4", m4v: "video/mp4", webm: "video/webm", mov: "video/quicktime", gif: "image/gif" };

/**
 * The type the copy is served with, from our own origin: only video, audio and
 * raster image types are passed on (never HTML or SVG a gateway might send);
 * anything else is inferred from the extension or served as plain bytes.
 */
export function mediaContentType(header: string | null, url: string): string {
  const type = header?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (/^(video|audio)\/[a-z0-9.+-]+$/.test(type) || /^image\/(png|jpeg|gif|webp|avif)$/.test(type)) return type;
  const extension = new URL(url).pathname.split(".").pop()?.toLowerCase() ?? "";
  return BY_EXTENSION[extension] ?? "application/octet-stream";
}
