// One attempt at one copy job: claim the row (the attempt number is the
// fencing token), copy or delete within the attempt's bounds, record how it
// ended, and announce the generation when what its gallery card plays changed.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import type { MediaCopy } from "@/lib/generated/prisma/client";
import { tracedGeneration } from "@/lib/generations/generation-trace";
import { announceGenerationChange } from "@/lib/generations/store";
import { onDrain } from "@/lib/lifecycle/drain";
import { copyFile, quotaFull } from "./copy-file";
import { DownloadError } from "./safe-download";
import { deferStill, stillFields, stillKeyOf, storeStill } from "./stills";
import type { MediaStorage } from "@/lib/storage/storage";
import { updateMediaCopyIf } from "./update-if";

const MAX_BACKOFF_MS = 3600_000;

/** Runs `job` if this caller can lease it; false when another runner has it or it is not due. */
export async function runCopyAttempt(job: MediaCopy, storage: MediaStorage): Promise<boolean> {
  const now = new Date();
  const attempt = job.attempts + 1;
  // A worker whose lease lapsed and was taken over can no longer write the row.
  const claimed = await updateMediaCopyIf({
    where: { id: job.id, state: job.state, attempts: job.attempts, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    data: { state: job.state === "DELETING" ? "DELETING" : "COPYING", attempts: attempt, leaseUntil: leaseFrom(now) },
  });
  if (!claimed) return false;
  // Runs from a queue, after the request that asked for it: the span joins the generation's trace.
  const attributes = { "framehook.media_copy.id": job.id, "framehook.media_copy.position": job.position, "framehook.media_copy.attempt": attempt };
  await tracedGeneration(job.state === "DELETING" ? "media.delete" : "media.copy", { id: job.generationId, attributes }, () =>
    runClaimed({ job, storage, attempt, now }),
  );
  return true;
}

/** The attempt `attempt` at `job`, once claimed: it ends recorded (done, failed, handed back), never thrown. */
async function runClaimed({ job, storage, attempt, now }: { job: MediaCopy; storage: MediaStorage; attempt: number; now: Date }): Promise<void> {
  const mine = { id: job.id, attempts: attempt };

  const abort = new AbortController();
  // Keeps the lease while the copy runs, never past the attempt's deadline
  // (the copy is cut there; a process that hangs beyond it loses the lease).
  const renewUntil = now.getTime() + env.MEDIA_COPY_DEADLINE_MS;
  const heartbeat = setInterval(() => {
    if (Date.now() >= renewUntil) return;
    updateMediaCopyIf({ where: mine, data: { leaseUntil: leaseFrom(new Date()) } })
      .then((kept) => kept || abort.abort())
      .catch(() => {});
  }, env.MEDIA_COPY_LEASE_MS / 3);
  // The instance is stopping: the copy is cut and the job handed back due now, so that another
  // instance takes it at once rather than after the lease. The attempt still counts. Both this
  // write and the attempt's own end are conditional on the fencing token: one of them wins.
  let handedBack = false;
  const forgetDrain = onDrain(async () => {
    handedBack = true;
    abort.abort();
    const deleting = job.state === "DELETING";
    await updateMediaCopyIf({
      where: { ...mine, state: deleting ? "DELETING" : "COPYING" },
      data: { state: deleting ? "DELETING" : "PENDING", leaseUntil: null, nextRunAt: new Date() },
    });
  });
  try {
    if (job.state === "DELETING") {
      await storage.delete({ key: job.storageKey });
      if (job.stillKey) await storage.delete({ key: job.stillKey });
      if (await updateMediaCopyIf({ where: mine, data: { state: "DELETED", stillKey: null, leaseUntil: null, lastError: null } })) {
        await announceGenerationChange({ id: job.generationId });
      }
      return;
    }
    const storageLeft = await quotaLeft();
    if (storageLeft !== undefined && storageLeft <= 0) throw quotaFull(storageLeft);
    const file = await copyFile({
      sourceUrl: job.sourceUrl,
      key: job.storageKey,
      storage,
      trustedOrigin: env.gatewayIsLocal ? new URL(env.GATEWAY_BASE_URL).origin : null,
      maxBytes: env.MEDIA_MAX_BYTES,
      storageLeft,
      limits: { minBytesPerSecond: env.MEDIA_COPY_MIN_BYTES_PER_SECOND, windowMs: env.MEDIA_COPY_RATE_WINDOW_MS, deadlineMs: env.MEDIA_COPY_DEADLINE_MS },
      signal: abort.signal,
    });
    // Under the same lease, so the card switches to the copy and its still at once. A video that
    // cannot be decoded is stored all the same; anything else (the bytes say) is stored as an opaque file.
    const still = await storeStill({ storage, key: job.storageKey });
    const done = await updateMediaCopyIf({
      where: { ...mine, state: "COPYING" },
      data: { state: "DONE", ...file, contentType: still.contentType ?? file.contentType, ...stillFields(still), leaseUntil: null, lastError: null, completedAt: new Date() },
    });
    // The card switches to the stored file now, not at its next safety-net poll.
    if (done) await announceGenerationChange({ id: job.generationId });
    if (done && still.outcome === "busy") deferStill(job.id);
    if (!done) await deleteIfGone({ job, storage });
  } catch (error) {
    if (!handedBack && !(await recordFailure({ job, attempt, error }))) await deleteIfGone({ job, storage });
  } finally {
    forgetDrain();
    clearInterval(heartbeat);
  }
}

/**
 * A copy whose job row is gone when it ends (its generation was deleted with
 * its account while the file was copied: the deletion removed what was stored
 * then, not what this attempt stored after) deletes what it stored, the file
 * and its still; nothing else would, since no row names them any more. A row
 * that is still there (a runner that took the lease over writes the same key)
 * is left to its runner.
 */
async function deleteIfGone({ job, storage }: { job: MediaCopy; storage: MediaStorage }): Promise<void> {
  if (job.state === "DELETING") return;
  if (await prisma.mediaCopy.findUnique({ where: { id: job.id }, select: { id: true } })) return;
  for (const key of [job.storageKey, stillKeyOf(job.storageKey)]) {
    await storage.delete({ key }).catch((error: unknown) => {
      console.warn(`[framehook] could not delete ${key}, copied for a generation deleted meanwhile: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

/** Records the attempt's failure; false when the row no longer matched (taken over, or gone). */
async function recordFailure({ job, attempt, error }: { job: MediaCopy; attempt: number; error: unknown }): Promise<boolean> {
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
  if (!updated || !givenUp) return updated;
  // Flagged, never dropped silently: the row stays FAILED and says why, and open pages hear of it.
  console.warn(`[framehook] media copy ${job.id} of generation ${job.generationId} failed for good after ${attempt} attempt(s): ${message}`);
  await announceGenerationChange({ id: job.generationId });
  return true;
}

/** What MEDIA_STORAGE_QUOTA_BYTES still allows (copies stored or awaiting deletion count), or undefined without a quota. */
async function quotaLeft(): Promise<number | undefined> {
  if (!env.MEDIA_STORAGE_QUOTA_BYTES) return undefined;
  const { _sum } = await prisma.mediaCopy.aggregate({ where: { state: { in: ["DONE", "DELETING"] } }, _sum: { size: true } });
  return env.MEDIA_STORAGE_QUOTA_BYTES - (_sum.size ?? 0);
}

const leaseFrom = (now: Date) => new Date(now.getTime() + env.MEDIA_COPY_LEASE_MS);
