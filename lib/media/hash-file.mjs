// A file's SHA-256, shared by the image re-encode (image-check.ts, on the
// thread that answers requests) and the container worker (clips, on its own
// thread): each returns its output's hash with its size. Plain
// JavaScript, so that the worker loads it as it is under Next, Vitest and tsx.
import { createHash } from "node:crypto";
import fs from "node:fs";

/** The bytes hashed at a time, through one buffer. */
const HASH_CHUNK_BYTES = 1024 * 1024;

/**
 * The file's SHA-256 in hex, read through one reused buffer: a stream would
 * leave a fresh 64 KiB chunk per read for the garbage collector.
 * @param {string} file
 * @returns {Promise<string>}
 */
export async function hashFile(file) {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  const handle = await fs.promises.open(file, "r");
  try {
    for (let read; (read = (await handle.read(buffer, 0, buffer.length, null)).bytesRead) > 0; ) hash.update(buffer.subarray(0, read));
  } finally {
    await handle.close();
  }
  return hash.digest("hex");
}
