// The spending cap per owner: SPEND_LIMIT_CREDITS per SPEND_LIMIT_WINDOW.
// What counts is the estimate of everything the owner has in flight plus
// what succeeded in the current window; a new generation is inserted only if
// that total stays within the cap, atomically, so concurrent submits of one
// owner cannot overshoot (only a task that costs more than its estimate can).
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { DEFAULT_DURATION_SECONDS, type ModelSpec } from "@/lib/models/catalog";

/**
 * Credits per output second assumed for "pay-per-use" models, whose rate the
 * gateway does not publish: above every published rate (0.1408/s), so the cap
 * errs on the side of refusing. Credits are USD at this gateway.
 */
export const ASSUMED_CREDITS_PER_SECOND = 0.15;

export type SpendWindow = "hour" | "day" | "week";
export type Spend = { used: number; limit: number; window: SpendWindow; resetsAt: string };

const WINDOW_MS: Record<SpendWindow, number> = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 };
const WINDOW_WORDS: Record<SpendWindow, string> = { hour: "this hour", day: "today", week: "this week" };
/** Money in floating point: totals within a ten-thousandth of the cap are at the cap. */
const EPSILON = 1e-6;
const BUSY_WAIT_MS = 10_000;
/** One owner's concurrent submits queue on the lock row; on PostgreSQL they also wait for a pooled connection. */
const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 10_000 };

export function estimateCredits(model: ModelSpec, durationSeconds: number | undefined): number {
  const perSecond = model.usdPerSecond ?? ASSUMED_CREDITS_PER_SECOND;
  return Math.round(perSecond * (durationSeconds ?? DEFAULT_DURATION_SECONDS) * 10_000) / 10_000;
}

/** Fixed windows in UTC (weeks start on Monday), the same for every owner. */
export function spendWindowBounds(window: SpendWindow, now = Date.now()): { start: Date; end: Date } {
  const size = WINDOW_MS[window];
  const monday = 4 * 86_400_000; // 1970-01-05 was a Monday
  const offset = window === "week" ? monday : 0;
  const start = Math.floor((now - offset) / size) * size + offset;
  return { start: new Date(start), end: new Date(start + size) };
}

type Reader = Pick<typeof prisma, "generation">;

/** Credits the owner has in flight (estimates) plus what succeeded since `since` (charged, or the estimate if unreported). */
async function usedCredits(db: Reader, ownerId: string, since: Date): Promise<number> {
  const inFlight = await db.generation.aggregate({
    _sum: { costEstimate: true },
    where: { ownerId, state: { in: ["SUBMITTING", "PENDING"] } },
  });
  const charged = await db.generation.aggregate({
    _sum: { creditsConsumed: true },
    where: { ownerId, state: "SUCCESS", completedAt: { gte: since } },
  });
  const unreported = await db.generation.aggregate({
    _sum: { costEstimate: true },
    where: { ownerId, state: "SUCCESS", completedAt: { gte: since }, creditsConsumed: null },
  });
  const total = (inFlight._sum.costEstimate ?? 0) + (charged._sum.creditsConsumed ?? 0) + (unreported._sum.costEstimate ?? 0);
  return Math.round(total * 10_000) / 10_000;
}

/** The owner's spend against the cap, or null when there is no cap. */
export async function getSpend({ ownerId, now = Date.now() }: { ownerId: string; now?: number }): Promise<Spend | null> {
  if (env.SPEND_LIMIT_CREDITS <= 0) return null;
  const { start, end } = spendWindowBounds(env.SPEND_LIMIT_WINDOW, now);
  const used = await usedCredits(prisma, ownerId, start);
  return { used, limit: env.SPEND_LIMIT_CREDITS, window: env.SPEND_LIMIT_WINDOW, resetsAt: end.toISOString() };
}

/**
 * Inserts a generation unless it would take its owner past the cap, in which
 * case nothing is stored and a 429 is thrown. The owner's SpendLock row is
 * written first: on PostgreSQL its row lock queues the owner's concurrent
 * submits, and each then sums what the previous one committed; on SQLite the
 * transaction holds the one write lock from that first write on.
 */
export async function createWithinSpendLimit(
  data: Prisma.GenerationUncheckedCreateInput & { ownerId: string; costEstimate: number },
  now = Date.now(),
) {
  if (env.SPEND_LIMIT_CREDITS <= 0) return prisma.generation.create({ data });
  const limit = env.SPEND_LIMIT_CREDITS;
  const { start, end } = spendWindowBounds(env.SPEND_LIMIT_WINDOW, now);
  return retryWhileBusy(() =>
    prisma.$transaction(async (tx) => {
      await tx.$executeRaw`
        INSERT INTO "SpendLock" ("ownerId", "lockedAt") VALUES (${data.ownerId}, ${new Date(now)})
        ON CONFLICT ("ownerId") DO UPDATE SET "lockedAt" = excluded."lockedAt"`;
      const used = await usedCredits(tx, data.ownerId, start);
      if (used + data.costEstimate > limit + EPSILON) throw spendLimitError({ used, limit, end, now });
      return tx.generation.create({ data });
    }, TRANSACTION_OPTIONS),
  );
}

function spendLimitError({ used, limit, end, now }: { used: number; limit: number; end: Date; now: number }): AppError {
  const retryAfter = Math.max(1, Math.ceil((end.getTime() - now) / 1000));
  const resets = `${end.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return new AppError(
    "spend_limit",
    `You've used ${formatAmount(used)} of ${formatAmount(limit)} credits ${WINDOW_WORDS[env.SPEND_LIMIT_WINDOW]}; resets at ${resets}. ` +
      "Generations still in progress count at their estimate until they finish. Nothing was sent to the gateway.",
    undefined,
    { "Retry-After": String(retryAfter) },
  );
}

const formatAmount = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

/**
 * SQLite answers a second writer's BEGIN with "busy" at once, and a PostgreSQL
 * pool may have no connection free in time (P2028): the transaction did not
 * run or was rolled back, so it is tried again until the deadline.
 */
async function retryWhileBusy<T>(run: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5 * 2 ** attempt, 100) * (0.5 + Math.random())));
    }
  }
}

function isBusy(error: unknown): boolean {
  if (error instanceof AppError) return false;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "P1008" || code === "P2028" || code === "P2034" || (typeof message === "string" && /SQLITE_BUSY|database is locked/i.test(message));
}
