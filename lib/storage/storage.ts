// Where copied results live: one small interface, one implementation per
// backend (local-storage.ts, s3-storage.ts), chosen once from the environment
// (MEDIA_STORAGE). Callers never import a backend directly.
import "server-only";
import type { Readable } from "node:stream";
import { env } from "@/lib/env";

export type ByteRange = { start: number; end: number };

export interface MediaStorage {
  readonly kind: "local" | "s3";
  /**
   * Streams `body` to `key`. Resolves once the whole object is stored; if the
   * body fails (cut, too large), rejects and leaves nothing new at `key`.
   * Writing the same key again replaces the object: a retried copy never doubles.
   */
  put(args: { key: string; body: Readable; contentType: string }): Promise<void>;
  /**
   * Stores the whole of a local `file` at `key`, as put does (an upload,
   * checked and rewritten in a temporary file). A backend that can copy it
   * without reading it into the process (the local disk) does so.
   */
  putFile(args: { key: string; file: string; contentType: string }): Promise<void>;
  /**
   * Writes the whole object at `key` to the local `file` (a decoder's input),
   * putFile the other way: false when there is no such object; throws,
   * leaving no file, when it is over `maxBytes`. The local disk copies it
   * without reading it into the process.
   */
  getFile(args: { key: string; file: string; maxBytes: number }): Promise<boolean>;
  /** The object's bytes (or a range of them), or null if there is no such object. */
  get(args: { key: string; range?: ByteRange }): Promise<{ body: Readable; size: number } | null>;
  /**
   * A URL the browser can fetch the object from directly, or null when the app
   * serves it (get). A signed one expires after `expiresSeconds` (default: the
   * backend's own, S3_PRESIGN_SECONDS); a public bucket's never does.
   */
  url(args: { key: string; expiresSeconds?: number }): Promise<string | null>;
  delete(args: { key: string }): Promise<void>;
  /**
   * A form the browser posts one file with straight to `key` (S3 only): the
   * signed policy fixes the key and caps the size; it expires after `expiresSeconds`.
   */
  presignPost?(args: { key: string; maxBytes: number; expiresSeconds: number }): Promise<PresignedPost>;
}

export type PresignedPost = { url: string; fields: Record<string, string> };

export const overLimit = (maxBytes: number) => new Error(`the stored object is larger than ${maxBytes} bytes`);

let chosen: Promise<MediaStorage | null> | undefined;

/** The configured storage, or null when MEDIA_STORAGE=none. Backends load on first use. */
export function getMediaStorage(): Promise<MediaStorage | null> {
  chosen ??= createStorage();
  return chosen;
}

export const mediaStorageEnabled = () => env.MEDIA_STORAGE !== "none";

async function createStorage(): Promise<MediaStorage | null> {
  switch (env.MEDIA_STORAGE) {
    case "none":
      return null;
    case "local": {
      const { createLocalStorage } = await import("./local-storage");
      return createLocalStorage({ root: env.MEDIA_LOCAL_DIR });
    }
    case "s3": {
      const { createS3Storage } = await import("./s3-storage");
      return createS3Storage({
        bucket: env.S3_BUCKET!,
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
        publicBaseUrl: env.S3_PUBLIC_BASE_URL,
        presignSeconds: env.S3_PRESIGN_SECONDS,
      });
    }
  }
}
