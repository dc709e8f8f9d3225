// The polling fallback: asks the gateway about PENDING tasks nobody has heard
// from lately. A lease in the database (a conditional update of
// pollLeaseUntil) means at most one gateway call per task per interval, however
// many tabs, instances or cron runs are reading.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { GatewayError, getTask } from "@/lib/gateway/client";
import { applyTaskSnapshot } from "./apply-task-snapshot";
import { isLost } from "./generation";
import { tracedGeneration } from "./generation-trace";
import { recordDelivery } from "./delivery-log";
import { releaseHoldOf, updateGenerationIf } from "./store";

/**
 * The longest a task waits between polls after an error, and the cap on a
 * gateway's Retry-After: a "come back in an hour" (or a date years ahead)
 * must not park a task, the cron included.
 */
export const MAX_BACKOFF_MS = 5 * 60_000;
/**
 * "The gateway does not know this task" is never final (a restart, a failover
 * or a lagging replica says it too, and the real outcome may follow), so such
 * tasks are asked again on a long backoff, for as long as they stay open.
 */
export const NOT_FOUND_MAX_BACKOFF_MS = 30 * 60_000;
const BATCH = 25;

/** Polls the stale PENDING tasks (all, or those of `ids`) this caller could lease; returns how many it asked about. */
export async function refreshStaleGenerations({ ids }: { ids?: string[] } = {}): Promise<number> {
  const now = new Date();
  const stale = await prisma.generation.findMany({
    where: {
      state: "PENDING",
      taskId: { not: null },
      ...(ids ? { id: { in: ids } } : {}),
      OR: [{ lastHeardAt: null }, { lastHeardAt: { lt: new Date(now.getTime() - env.POLL_STALE_MS) } }],
      AND: [{ OR: [{ pollLeaseUntil: null }, { pollLeaseUntil: { lt: now } }] }],
    },
    select: { id: true, taskId: true, pollFailures: true, pollNotFound: true, notFoundSince: true },
    orderBy: { lastHeardAt: "asc" },
    take: BATCH,
  });
  const refreshed = await Promise.all(stale.map((g) => refreshOne({ ...g, taskId: g.taskId!, now })));
  return refreshed.filter(Boolean).length;
}

type StaleTask = { id: string; taskId: string; pollFailures: number; pollNotFound: number; notFoundSince: Date | null; now: Date };

async function refreshOne(stale: StaleTask) {
  const { id, taskId, now } = stale;
  const claimed = await updateGenerationIf({
    where: { id, state: "PENDING", OR: [{ pollLeaseUntil: null }, { pollLeaseUntil: { lt: now } }] },
    // The lease outlasts the gateway call, so a slow gateway is not asked twice.
    data: { pollLeaseUntil: new Date(now.getTime() + Math.max(env.POLL_STALE_MS, env.GATEWAY_TIMEOUT_MS + 1000)) },
  });
  if (!claimed) return false;
  // Asked from another request (a reader, the cron): the span joins the generation's trace.
  await tracedGeneration("generation.poll", { id, fromRequest: true, attributes: { "framehook.task.id": taskId } }, () =>
    pollOne(stale),
  );
  return true;
}

async function pollOne({ id, taskId, pollFailures, pollNotFound, notFoundSince, now }: StaleTask): Promise<void> {
  try {
    const snapshot = await getTask({ taskId });
    await applyTaskSnapshot({ generationId: id, snapshot, source: "POLL" });
    if (pollFailures > 0 || pollNotFound > 0) {
      await updateGenerationIf({ where: { id }, data: { pollFailures: 0, pollNotFound: 0, notFoundSince: null } });
    }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    // Only the gateway's own JSON 404 counts (lib/gateway/client.ts). It flags
    // the task, never ends it: the outcome is still taken from a later poll or callback.
    const notFound = error.kind === "not_found";
    const since = notFound ? (notFoundSince ?? now) : null;
    const exponential = env.POLL_STALE_MS * 2 ** (pollFailures + 1);
    // Back off exponentially, or as long as the gateway asked, within the cap.
    const backoff = notFound
      ? Math.min(exponential, NOT_FOUND_MAX_BACKOFF_MS)
      : Math.min(error.options.retryAfterMs ?? exponential, MAX_BACKOFF_MS);
    await updateGenerationIf({
      where: { id, state: "PENDING" },
      data: {
        pollFailures: { increment: 1 },
        pollNotFound: notFound ? { increment: 1 } : 0,
        notFoundSince: since,
        pollLeaseUntil: new Date(Date.now() + backoff),
      },
    });
    const lost = since !== null && isLost(since, now.getTime());
    const detail = `${error.kind}: ${error.message}${lost ? " (flagged lost; still open to a real report)" : ""}`;
    await recordDelivery({ generationId: id, taskId, source: "POLL", outcome: "ERROR", detail });
    if (lost) await releaseLostHold(id);
  }
}

/**
 * A task flagged lost gives its credit hold back (once: later polls find it
 * settled). It stays open to a real report; if it does come back, its SUCCESS
 * captures nothing, so the result is free to its owner, and the outcome write
 * logs it for the operator.
 */
async function releaseLostHold(id: string): Promise<void> {
  const credits = await releaseHoldOf({ id, where: { state: "PENDING", notFoundSince: { not: null } }, note: "the gateway lost the task" });
  if (credits > 0) {
    console.warn(`[framehook] generation ${id}: the gateway has not known its task for TASK_LOST_AFTER_MS; flagged lost and its hold of ${credits} credits given back`);
  }
}
