// The copy jobs: one MediaCopy row per result file of a SUCCESS generation,
// claimed with a conditional-update lease as polling is, so that however many
// callbacks, readers, cron runs or instances kick them, each file is copied
// once; a crash mid-copy leaves a lease that expires, and the next kick
// resumes. The rows are the truth: kicks are only hints to look at them.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { isHttpUrl, safeJsonParse } from "@/lib/gateway/task";
import type { MediaCopy } from "@/lib/generated/prisma/client";
import { copyFile } from "./copy-file";
import { DownloadError } from "./safe-download";
import { getMediaStorage, mediaStorageEnabled, type MediaStorage } from "./storage";
import { updateMediaCopyIf } from "./update-if";

const MAX_BACKOFF_MS = 3600_000;
const BATCH = 10;
/** Gateways keep results 14 days at most: older SUCCESS rows without copies are not worth a job. */
const BACKFILL_WINDOW_MS = 14 * 86_400_000;

/** At most this many copies run at once from requestMediaCopies in one process; the others wait, PENDING, for a slot. */
const CONCURRENT_COPIES = 4;
/** Generations per round of the queue: one query finds their missing jobs, one creates them, one finds the due ones. */
const ROUND = 100;

const wanted = new Set<string>();
let pumping = false;
let running = 0;
const waitingForSlot: (() => void)[] = [];

/**
 * Asks for the copy jobs of these SUCCESS generations to be created and run,
 * in the background. Asks made while a round is under way wait for the next
 * one, so a burst of callbacks costs a few batched queries, not a handful
 * each; and at most CONCURRENT_COPIES downloads run at once. The rows are the
 * truth: whatever this process does not get to, the cron and readers find.
 */
export function requestMediaCopies(generationIds: readonly string[]): void {
  if (!mediaStorageEnabled() || generationIds.length === 0) return;
  for (const id of generationIds) wanted.add(id);
  if (!pumping) void pump();
}

async function pump(): Promise<void> {
  pumping = true;
  try {
    while (wanted.size > 0) {
      const ids = [...wanted].slice(0, ROUND);
      for (const id of ids) wanted.delete(id);
      try {
        await scheduleMediaCopies({ generationIds: ids });
        const storage = await getMediaStorage();
        if (!storage) return;
        for (const job of await findDueJobs({ generationIds: ids, take: ROUND })) {
          await takeSlot();
          // A job that cannot even record its failure (the database locked, gone) stays due for the next runner.
          void runJob(job, storage)
            .catch((error: unknown) => console.error(`[framehook] media job ${job.id} could not run`, error))
            .finally(releaseSlot);
        }
      } catch (error) {
        console.error("[framehook] media copies could not start", error);
      }
    }
  } finally {
    pumping = false;
  }
}

async function takeSlot(): Promise<void> {
  while (running >= CONCURRENT_COPIES) await new Promise<void>((resolve) => waitingForSlot.push(resolve));
  running++;
}

function releaseSlot(): void {
  running--;
  waitingForSlot.shift()?.();
}

/**
 * Makes sure every SUCCESS generation (of `generationIds`, or recent ones)
 * has its copy jobs. Jobs are derived from SUCCESS rows, so a crash between
 * the transition and this call loses nothing: the next caller creates them.
 */
export async function scheduleMediaCopies({ generationIds }: { generationIds?: string[] } = {}): Promise<number> {
  if (!mediaStorageEnabled()) return 0;
  const missing = await prisma.generation.findMany({
    where: {
      state: "SUCCESS",
      mediaCopies: { none: {} },
      ...(generationIds ? { id: { in: generationIds } } : { createdAt: { gt: new Date(Date.now() - BACKFILL_WINDOW_MS) } }),
    },
    select: { id: true, resultUrls: true },
    take: 100,
  });
  const jobs = missing.flatMap((generation) =>
    parseUrls(generation.resultUrls).map((sourceUrl, position) => ({ generationId: generation.id, position, sourceUrl, storageKey: `generations/${generation.id}/${position}` })),
  );
  if (jobs.length === 0) return 0;
  try {
    return (await prisma.mediaCopy.createMany({ data: jobs })).count;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Another scheduler (a reader, the cron, an instance) created some of them
  // meanwhile: the unique (generationId, position) lets one row through each.
  let created = 0;
  for (const data of jobs) {
    const row = await prisma.mediaCopy.create({ data }).catch((error: unknown) => {
      if (isUniqueViolation(error)) return null;
      throw error;
    });
    if (row) created++;
  }
  return created;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === "P2002";

/** Runs the due jobs (all, or those of `generationIds`) this caller can lease; resolves when they are finished. */
export async function runDueMediaJobs({ generationIds }: { generationIds?: string[] } = {}): Promise<number> {
  const storage = await getMediaStorage();
  if (!storage) return 0;
  const due = await findDueJobs({ generationIds, take: BATCH });
  const ran = await Promise.all(due.map((job) => runJob(job, storage)));
  return ran.filter(Boolean).length;
}

/** Jobs whose time has come and whose lease (if any) has lapsed, oldest first. */
function findDueJobs({ generationIds, take }: { generationIds?: string[]; take: number }): Promise<MediaCopy[]> {
  const now = new Date();
  return prisma.mediaCopy.findMany({
    where: {
      state: { in: ["PENDING", "COPYING", "DELETING"] },
      nextRunAt: { lte: now },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
      ...(generationIds ? { generationId: { in: generationIds } } : {}),
    },
    orderBy: { nextRunAt: "asc" },
    take,
  });
}

async function runJob(job: MediaCopy, storage: MediaStorage): Promise<boolean> {
  const now = new Date();
  const attempt = job.attempts + 1;
  // The attempt number is the fencing token: a worker whose lease lapsed and
  // was taken over can no longer write the row.
  const claimed = await updateMediaCopyIf({
    where: { id: job.id, state: job.state, attempts: job.attempts, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    data: { state: job.state === "DELETING" ? "DELETING" : "COPYING", attempts: attempt, leaseUntil: leaseFrom(now) },
  });
  if (!claimed) return false;
  const mine = { id: job.id, attempts: attempt };

  const abort = new AbortController();
  // Keeps the lease while a long copy runs; if it was lost, stop: another worker has it.
  const heartbeat = setInterval(() => {
    updateMediaCopyIf({ where: mine, data: { leaseUntil: leaseFrom(new Date()) } })
      .then((kept) => kept || abort.abort())
      .catch(() => {});
  }, env.MEDIA_COPY_LEASE_MS / 3);
  try {
    if (job.state === "DELETING") {
      await storage.delete({ key: job.storageKey });
      await updateMediaCopyIf({ where: mine, data: { state: "DELETED", leaseUntil: null, lastError: null } });
      return true;
    }
    const file = await copyFile({
      sourceUrl: job.sourceUrl,
      key: job.storageKey,
      storage,
      trustedOrigin: env.gatewayIsLocal ? new URL(env.GATEWAY_BASE_URL).origin : null,
      maxBytes: env.MEDIA_MAX_BYTES,
      signal: abort.signal,
    });
    await updateMediaCopyIf({
      where: { ...mine, state: "COPYING" },
      data: { state: "DONE", ...file, leaseUntil: null, lastError: null, completedAt: new Date() },
    });
  } catch (error) {
    await recordFailure({ job, attempt, error });
  } finally {
    clearInterval(heartbeat);
  }
  return true;
}

async function recordFailure({ job, attempt, error }: { job: MediaCopy; attempt: number; error: unknown }) {
  const known = error instanceof DownloadError;
  if (!known) console.error(`[framehook] media job ${job.id} (${job.state}) failed`, error);
  const message = known ? error.message : job.state === "DELETING" ? "Deleting the stored copy failed." : "Storing the copy failed.";
  const deleting = job.state === "DELETING";
  // A deletion is retried until it succeeds; a copy until it cannot help.
  const givenUp = !deleting && ((known && error.permanent) || attempt >= env.MEDIA_COPY_MAX_ATTEMPTS);
  const backoff = Math.min(env.MEDIA_COPY_RETRY_MS * 4 ** (attempt - 1), MAX_BACKOFF_MS);
  const updated = await updateMediaCopyIf({
    where: { id: job.id, attempts: attempt },
    data: {
      state: givenUp ? "FAILED" : deleting ? "DELETING" : "PENDING",
      nextRunAt: new Date(Date.now() + backoff),
      leaseUntil: null,
      lastError: message.slice(0, 500),
    },
  });
  // Flagged, never dropped silently: the row stays FAILED and says why.
  if (updated && givenUp) console.warn(`[framehook] media copy ${job.id} of generation ${job.generationId} failed for good after ${attempt} attempt(s): ${message}`);
}

/** Retention: DONE copies older than MEDIA_RETENTION_DAYS become deletion jobs. */
export async function expireStoredMedia(): Promise<number> {
  if (!env.MEDIA_RETENTION_DAYS || !mediaStorageEnabled()) return 0;
  const cutoff = new Date(Date.now() - env.MEDIA_RETENTION_DAYS * 86_400_000);
  const { count } = await prisma.mediaCopy.updateMany({
    where: { state: "DONE", completedAt: { lt: cutoff } },
    data: { state: "DELETING", nextRunAt: new Date(), leaseUntil: null },
  });
  return count;
}

const leaseFrom = (now: Date) => new Date(now.getTime() + env.MEDIA_COPY_LEASE_MS);

function parseUrls(text: string): string[] {
  const value = safeJsonParse(text);
  return Array.isArray(value) ? value.filter((u): u is string => typeof u === "string" && isHttpUrl(u)) : [];
}
