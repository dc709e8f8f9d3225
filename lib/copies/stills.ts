// A still per stored video: one frame near 0.5 s, 640 px wide, stored beside
// the copy under `<key>-still`, so that the gallery shows images and a
// <video> exists only while something plays. Made by the copy job before it
// marks the copy DONE; copies stored before stills existed get theirs on the
// first request for it. The copy's first bytes are sniffed first: anything
// but an MP4, QuickTime or WebM video is kept as an opaque file, and FFmpeg
// never sees it. A file the decoder refuses has no still, and that is
// recorded so that it is not tried again; a still the server was too busy to
// make (or could not, FFmpeg missing) is left untried, and tried again on a
// later request, no sooner than its backoff allows.
import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { FORMAT_CONTENT_TYPE, isVideoFormat } from "@/lib/models/media-limits";
import { OPAQUE_CONTENT_TYPE } from "./media-copy";
import { isMediaBusy, mediaBusy } from "@/lib/media/media-pool";
import { readHead, sniffFormat } from "@/lib/media/sniff";
import type { MediaStorage } from "@/lib/storage/storage";
import { extractStill, ToolchainMissingError } from "@/lib/media/toolchain";
import { traced } from "@/lib/traces/tracing";
import { updateMediaCopyIf } from "./update-if";

export const STILL_CONTENT_TYPE = "image/jpeg";
/** Where a copy's still lives: beside it, on the same storage. */
export const stillKeyOf = (storageKey: string) => `${storageKey}-still`;

export type StillResult = {
  /** The still's key, when one was made. */
  key: string | null;
  /** "none": never tried again (no video, or the decoder refuses it); "busy": tried again later; "untried": FFmpeg is missing, tried once it is there. */
  outcome: "made" | "none" | "busy" | "untried";
  /** What the copy's bytes are: its video type, or OPAQUE_CONTENT_TYPE; null when they were not read. */
  contentType: string | null;
};

/**
 * Sniffs the object at `key`, then extracts and stores its still. Never
 * throws: the copy matters more than its still.
 */
export function storeStill(args: { storage: MediaStorage; key: string }): Promise<StillResult> {
  return traced("media.still", {}, async (span) => {
    const still = await makeStill(args);
    span.set({ "framehook.still.outcome": still.outcome });
    return still;
  });
}

async function makeStill({ storage, key }: { storage: MediaStorage; key: string }): Promise<StillResult> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-still-"));
  let contentType: string | null = null;
  try {
    const file = path.join(dir, "video");
    if (!(await storage.getFile({ key, file, maxBytes: env.MEDIA_MAX_BYTES }))) return { key: null, outcome: "none", contentType };
    const sniffed = sniffFormat(await readHead(file));
    if ("refused" in sniffed || !isVideoFormat(sniffed.format)) return { key: null, outcome: "none", contentType: OPAQUE_CONTENT_TYPE };
    contentType = FORMAT_CONTENT_TYPE[sniffed.format];
    const still = await extractStill({ file, format: "jpeg" });
    if (!still) return { key: null, outcome: "none", contentType };
    const stillKey = stillKeyOf(key);
    await storage.put({ key: stillKey, body: Readable.from([still.image]), contentType: STILL_CONTENT_TYPE });
    return { key: stillKey, outcome: "made", contentType };
  } catch (error) {
    console.warn(`[framehook] no still for ${key}: ${error instanceof Error ? error.message : String(error)}`);
    return { key: null, outcome: isMediaBusy(error) ? "busy" : error instanceof ToolchainMissingError ? "untried" : "none", contentType };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** The row's still fields for a still result: one left for later stays untried (stillCheckedAt null). */
export function stillFields(still: StillResult): { stillKey: string | null; stillCheckedAt: Date | null } {
  return { stillKey: still.key, stillCheckedAt: still.outcome === "busy" || still.outcome === "untried" ? null : new Date() };
}

// Backoff of stills the server was too busy to make, per copy, in this
// process: 15 s, doubling to 15 min. The row stays the truth (untried); this
// only spaces the tries, so a restart merely tries again sooner.
const RETRY_FIRST_MS = 15_000;
const RETRY_MAX_MS = 15 * 60_000;
const retries = new Map<string, { failures: number; notBefore: number }>();

/** Records that the server was too busy to make the still of copy `id`; returns the wait before the next try. */
export function deferStill(id: string): number {
  const failures = (retries.get(id)?.failures ?? 0) + 1;
  const wait = Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_MAX_MS);
  if (retries.size >= 10_000) retries.delete(retries.keys().next().value!);
  retries.set(id, { failures, notBefore: Date.now() + wait });
  return wait;
}

const busyFor = (ms: number) => mediaBusy(Math.max(1, Math.ceil(ms / 1000)));

/**
 * The still of a DONE copy not tried yet (stored before stills existed, or
 * left for later): made by whichever request claims it first (the others
 * find none yet). Throws the busy error while its backoff lasts, or when the
 * server was too busy to make it now.
 */
export async function backfillStill({ copy, storage }: { copy: { id: string; storageKey: string }; storage: MediaStorage }): Promise<string | null> {
  const wait = (retries.get(copy.id)?.notBefore ?? 0) - Date.now();
  if (wait > 0) throw busyFor(wait);
  const claimed = await updateMediaCopyIf({ where: { id: copy.id, state: "DONE", stillCheckedAt: null }, data: { stillCheckedAt: new Date() } });
  if (!claimed) return null;
  const still = await storeStill({ storage, key: copy.storageKey });
  const recorded = await updateMediaCopyIf({
    where: { id: copy.id, state: "DONE" },
    data: { ...stillFields(still), ...(still.contentType === OPAQUE_CONTENT_TYPE ? { contentType: OPAQUE_CONTENT_TYPE } : {}) },
  });
  // Deleted meanwhile (retention, a removed generation): its deletion did not know of this still.
  if (!recorded && still.key) await storage.delete({ key: still.key }).catch(() => undefined);
  if (still.outcome === "busy") throw busyFor(deferStill(copy.id));
  retries.delete(copy.id);
  return recorded ? still.key : null;
}

/** Makes the stills of every DONE copy that has never had one tried (`npm run stills`); returns how many were made. */
export async function backfillAllStills({ storage }: { storage: MediaStorage }): Promise<{ tried: number; made: number }> {
  let tried = 0;
  let made = 0;
  let lastId: string | undefined;
  for (;;) {
    // By id, past the last one seen: a copy left for later is not taken again in this run.
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
      const key = await backfillStill({ copy, storage }).catch((error: unknown) => {
        if (isMediaBusy(error)) return null;
        throw error;
      });
      if (key) made++;
    }
  }
}

