// The polling fallback: asks the gateway about PENDING tasks nobody has heard
// from lately. A lease in the database (a conditional update of
// pollLeaseUntil) means at most one gateway call per task per interval, however
// many tabs, instances or cron runs are reading.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { GatewayError, getTask } from "@/lib/gateway/client";
import type { TaskSnapshot } from "@/lib/gateway/task";
import { applyTaskSnapshot } from "./apply-task-snapshot";
import { recordDelivery } from "./delivery-log";
import { updateGenerationIf } from "./update-if";

const MAX_BACKOFF_MS = 5 * 60_000;
/**
 * A task is given up as lost only after this many consecutive "no such task"
 * answers, and only once it is old enough that a gateway hiccup (a restart, a
 * misrouted request) is not the likelier story.
 */
const NOT_FOUND_LIMIT = 3;
const NOT_FOUND_MIN_AGE_MS = 10 * 60_000;
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
    select: { id: true, taskId: true, pollFailures: true, pollNotFound: true, createdAt: true },
    orderBy: { lastHeardAt: "asc" },
    take: BATCH,
  });
  const refreshed = await Promise.all(stale.map((g) => refreshOne({ ...g, taskId: g.taskId!, now })));
  return refreshed.filter(Boolean).length;
}

async function refreshOne({
  id,
  taskId,
  pollFailures,
  pollNotFound,
  createdAt,
  now,
}: {
  id: string;
  taskId: string;
  pollFailures: number;
  pollNotFound: number;
  createdAt: Date;
  now: Date;
}) {
  const claimed = await updateGenerationIf({
    where: { id, state: "PENDING", OR: [{ pollLeaseUntil: null }, { pollLeaseUntil: { lt: now } }] },
    // The lease outlasts the gateway call, so a slow gateway is not asked twice.
    data: { pollLeaseUntil: new Date(now.getTime() + Math.max(env.POLL_STALE_MS, env.GATEWAY_TIMEOUT_MS + 1000)) },
  });
  if (!claimed) return false;

  try {
    const snapshot = await getTask({ taskId });
    await applyTaskSnapshot({ generationId: id, snapshot, source: "POLL" });
    if (pollFailures > 0 || pollNotFound > 0) await updateGenerationIf({ where: { id }, data: { pollFailures: 0, pollNotFound: 0 } });
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const notFound = error.kind === "not_found";
    if (notFound && pollNotFound + 1 >= NOT_FOUND_LIMIT && now.getTime() - createdAt.getTime() > NOT_FOUND_MIN_AGE_MS) {
      // The gateway has answered "no such task" several times, minutes apart:
      // it will never finish, and it will not be charged. Say so.
      await applyTaskSnapshot({ generationId: id, snapshot: lostTask(taskId), source: "POLL", detail: `not_found ${NOT_FOUND_LIMIT} times` });
      return true;
    }
    // Back off exponentially, or as long as the gateway asked.
    const backoff = error.options.retryAfterMs ?? Math.min(env.POLL_STALE_MS * 2 ** (pollFailures + 1), MAX_BACKOFF_MS);
    await updateGenerationIf({
      where: { id, state: "PENDING" },
      data: { pollFailures: { increment: 1 }, pollNotFound: notFound ? { increment: 1 } : 0, pollLeaseUntil: new Date(Date.now() + backoff) },
    });
    await recordDelivery({ generationId: id, taskId, source: "POLL", outcome: "ERROR", detail: `${error.kind}: ${error.message}` });
  }
  return true;
}

function lostTask(taskId: string): TaskSnapshot {
  return {
    taskId,
    state: "FAILURE",
    resultUrls: [],
    creditsConsumed: 0,
    failCode: "task_not_found",
    failMessage: "The gateway no longer knows this task, so it will not finish.",
    metadata: {},
  };
}
