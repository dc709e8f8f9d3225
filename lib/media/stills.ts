// A still per stored video: one frame near 0.5 s, 640 px wide, stored beside
// the copy under `<key>-still`, so that the gallery shows images and a
// <video> exists only while something plays. Made by the copy job before it
// marks the copy DONE; copies stored before stills existed get theirs on the
// first request for it. A file that cannot be decoded has no still, and that
// is recorded so that it is not tried again.
import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import type { MediaStorage } from "./storage";
import { extractStill } from "./toolchain";
import { updateMediaCopyIf } from "./update-if";

export const STILL_CONTENT_TYPE = "image/jpeg";
/** Where a copy's still lives: beside it, on the same storage. */
export const stillKeyOf = (storageKey: string) => `${storageKey}-still`;

/**
 * Extracts and stores the still of the object at `key`; resolves with the
 * still's key, or null when the video has no decodable frame (or the
 * toolchain is missing: the copy matters more than its still).
 */
export async function storeStill({ storage, key }: { storage: MediaStorage; key: string }): Promise<string | null> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-still-"));
  try {
    const object = await storage.get({ key });
    if (!object) return null;
    const file = path.join(dir, "video");
    await pipeline(object.body, capped(env.MEDIA_MAX_BYTES), fs.createWriteStream(file));
    const still = await extractStill({ file, format: "jpeg" });
    if (!still) return null;
    const stillKey = stillKeyOf(key);
    await storage.put({ key: stillKey, body: Readable.from([still.image]), contentType: STILL_CONTENT_TYPE });
    return stillKey;
  } catch (error) {
    console.warn(`[framehook] no still for ${key}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/**
 * The still of a DONE copy that was stored before stills existed: made once,
 * by whichever request claims it first (the others find none yet).
 */
export async function backfillStill({ copy, storage }: { copy: { id: string; storageKey: string }; storage: MediaStorage }): Promise<string | null> {
  const claimed = await updateMediaCopyIf({ where: { id: copy.id, state: "DONE", stillCheckedAt: null }, data: { stillCheckedAt: new Date() } });
  if (!claimed) return null;
  const stillKey = await storeStill({ storage, key: copy.storageKey });
  if (stillKey) await updateMediaCopyIf({ where: { id: copy.id, state: "DONE" }, data: { stillKey } });
  return stillKey;
}

/** Makes the stills of every DONE copy that has never had one tried (`npm run stills`); returns how many were made. */
export async function backfillAllStills({ storage }: { storage: MediaStorage }): Promise<{ tried: number; made: number }> {
  let tried = 0;
  let made = 0;
  for (;;) {
    const copies = await prisma.mediaCopy.findMany({ where: { state: "DONE", stillCheckedAt: null }, select: { id: true, storageKey: true }, take: 50 });
    if (copies.length === 0) return { tried, made };
    for (const copy of copies) {
      tried++;
      if (await backfillStill({ copy, storage })) made++;
    }
  }
}

function capped(maxBytes: number): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? new Error(`the stored object is larger than ${maxBytes} bytes`) : null, chunk);
    },
  });
}
