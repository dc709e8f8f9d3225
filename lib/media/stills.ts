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
import { extractStill, ToolchainMissingError } from "./toolchain";
import { updateMediaCopyIf } from "./update-if";

export const STILL_CONTENT_TYPE = "image/jpeg";
/** Where a copy's still lives: beside it, on the same storage. */
export const stillKeyOf = (storageKey: string) => `${storageKey}-still`;

/**
 * Extracts and stores the still of the object at `key`. `key` is null when
 * the video has no decodable frame; `tried` is false when the toolchain is
 * not installed, so that the still is made once it is. Never throws: the copy
 * matters more than its still.
 */
export async function storeStill({ storage, key }: { storage: MediaStorage; key: string }): Promise<{ key: string | null; tried: boolean }> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-still-"));
  try {
    const object = await storage.get({ key });
    if (!object) return { key: null, tried: true };
    const file = path.join(dir, "video");
    await pipeline(object.body, capped(env.MEDIA_MAX_BYTES), fs.createWriteStream(file));
    const still = await extractStill({ file, format: "jpeg" });
    if (!still) return { key: null, tried: true };
    const stillKey = stillKeyOf(key);
    await storage.put({ key: stillKey, body: Readable.from([still.image]), contentType: STILL_CONTENT_TYPE });
    return { key: stillKey, tried: true };
  } catch (error) {
    console.warn(`[framehook] no still for ${key}: ${error instanceof Error ? error.message : String(error)}`);
    return { key: null, tried: !(error instanceof ToolchainMissingError) };
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
  const still = await storeStill({ storage, key: copy.storageKey });
  // Not tried (no toolchain): released for a later request or `npm run stills`.
  await updateMediaCopyIf({ where: { id: copy.id, state: "DONE" }, data: still.tried ? { stillKey: still.key } : { stillCheckedAt: null } });
  return still.key;
}

/** Makes the stills of every DONE copy that has never had one tried (`npm run stills`); returns how many were made. */
export async function backfillAllStills({ storage }: { storage: MediaStorage }): Promise<{ tried: number; made: number }> {
  let tried = 0;
  let made = 0;
  let lastId: string | undefined;
  for (;;) {
    // By id, past the last one seen: a copy released untried (no toolchain) is not taken again in this run.
    const copies = await prisma.mediaCopy.findMany({
      where: { state: "DONE", stillCheckedAt: null, ...(lastId ? { id: { gt: lastId } } : {}) },
      select: { id: true, storageKey: true },
      orderBy: { id: "asc" },
      take: 50,
    });
    if (copies.length === 0) return { tried, made };
    lastId = copies.at(-1)!.id;
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
