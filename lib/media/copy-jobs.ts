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

/** Creates the copy jobs of a SUCCESS generation (idempotent), then starts them in the background. */
export function startMediaCopies({ generationId }: { generationId: string }): void {
  if (!mediaStorageEnabled()) return;
  void scheduleMediaCopies({ generationIds: [generationId] })
    .then(() => runDueMediaJobs({ generationIds: [generationId] }))
    .catch((error) => console.error("[framehook] media copy could not start", error));
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
  let created = 0;
  for (const generation of missing) {
    const urls = parseUrls(generation.resultUrls);
    for (const [position, sourceUrl] of urls.entries()) {
      // The unique (generationId, position) makes concurrent schedulers create one row.
      const row = await prisma.mediaCopy
        .create({ data: { generationId: generation.id, position, sourceUrl, storageKey: `generations/${generation.id}/${position}` } })
        .catch((error: unknown) => {
          if ((error as { code?: string }).code === "P2002") return null;
          throw error;
        });
      if (row) created++;
    }
  }
  return created;
}

/** Runs the due jobs (all, or those of `generationIds`) this caller can lease; resolves when they are finished. */
export async function runDueMediaJobs({ generationIds }: { generationIds?: string[] } = {}): Promise<number> {
  const storage = await getMediaStorage();
  if (!storage) return 0;
  const now = new Date();
  const due = await prisma.mediaCopy.findMany({
    where: {
      state: { in: ["PENDING", "COPYING", "DELETING"] },
      nextRunAt: { lte: now },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
      ...(generationIds ? { generationId: { in: generationIds } } : {}),
    },
    orderBy: { nextRunAt: "asc" },
    take: BATCH,
  });
  const ran = await Promise.all(due.map((job) => runJob(job, storage)));
  return ran.filter(Boolean).length;
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
