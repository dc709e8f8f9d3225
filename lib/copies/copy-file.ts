// One copy: the gateway's file streamed into storage, counted, capped and
// hashed on the way, bounded in time (transfer-guard.ts), and refused as
// incomplete when fewer bytes arrive than the gateway announced. Nothing is
// held in memory beyond a stream's buffers.
import "server-only";
import { createHash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DownloadError, openDownload, tooLarge } from "./safe-download";
import type { MediaStorage } from "@/lib/storage/storage";
import { formatBytes, guardTransfer, type TransferLimits } from "./transfer-guard";

export type CopiedFile = { size: number; sha256: string; contentType: string };

export async function copyFile({
  sourceUrl,
  key,
  storage,
  trustedOrigin,
  maxBytes,
  storageLeft,
  limits,
  signal,
}: {
  sourceUrl: string;
  key: string;
  storage: MediaStorage;
  trustedOrigin: string | null;
  maxBytes: number;
  /** Bytes the storage quota still allows (undefined: no quota). */
  storageLeft?: number;
  limits: TransferLimits;
  /** Aborts the copy from outside (its lease was lost). */
  signal?: AbortSignal;
}): Promise<CopiedFile> {
  const abort = new AbortController();
  const stopOuter = forward(signal, abort);
  let meter: Meter | undefined;
  const stopGuard = guardTransfer({ limits, bytes: () => meter?.bytes ?? 0, abort });
  // Whatever error the streams report, a limit that cut the transfer is what happened.
  const why = (error: unknown) => (abort.signal.reason instanceof DownloadError ? abort.signal.reason : error);
  try {
    const download = await openDownload({ url: sourceUrl, trustedOrigin, maxBytes, signal: abort.signal }).catch((error: unknown) => {
      throw why(error);
    });
    try {
      if (storageLeft !== undefined && download.length !== null && download.length > storageLeft) throw quotaFull(storageLeft);
      const counted = (meter = new Meter(download.length, maxBytes, storageLeft));
      const contentType = mediaContentType(download.contentType, sourceUrl);
      // pipeline passes a cut connection (an error or a premature close) on to
      // the meter, which fails the upload: nothing incomplete is stored.
      const piping = pipeline(download.body, counted).catch((error: unknown) => {
        throw why(error instanceof DownloadError ? error : new DownloadError(`The download was cut short after ${counted.bytes} bytes.`, false));
      });
      await Promise.all([storage.put({ key, body: counted, contentType }), piping]).catch((error: unknown) => {
        throw why(error);
      });
      return { size: counted.bytes, sha256: counted.hash.digest("hex"), contentType };
    } finally {
      download.body.destroy();
    }
  } finally {
    stopGuard();
    stopOuter();
  }
}

/** Aborts `to` when `from` aborts; returns the function that stops listening. */
function forward(from: AbortSignal | undefined, to: AbortController): () => void {
  if (!from) return () => {};
  const onAbort = () => to.abort(from.reason);
  if (from.aborted) onAbort();
  from.addEventListener("abort", onAbort, { once: true });
  return () => from.removeEventListener("abort", onAbort);
}

/** Permanent: copies fail visibly (FAILED, with this message) once the quota is used up. */
export const quotaFull = (left: number) =>
  new DownloadError(
    left <= 0
      ? "Not stored: the media storage quota (MEDIA_STORAGE_QUOTA_BYTES) is full."
      : `Not stored: the file is larger than the ${formatBytes(left)} left in the media storage quota (MEDIA_STORAGE_QUOTA_BYTES).`,
    true,
  );

class Meter extends Transform {
  bytes = 0;
  readonly hash = createHash("sha256");

  constructor(
    private readonly expected: number | null,
    private readonly maxBytes: number,
    private readonly storageLeft: number | undefined,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return done(tooLarge(this.maxBytes));
    if (this.storageLeft !== undefined && this.bytes > this.storageLeft) return done(quotaFull(this.storageLeft));
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
