// The spending caps, per SPEND_LIMIT_WINDOW: per owner (SPEND_LIMIT_CREDITS for
// accounts, SPEND_LIMIT_GUEST_CREDITS for guests), per client address for anonymous visitors (SPEND_LIMIT_ADDRESS_CREDITS: a
// visitor who drops their cookie is a new owner, never a new address), and
// for everyone together (SPEND_LIMIT_TOTAL_CREDITS). What counts is the
// estimate of everything in flight plus what succeeded in the current window,
// and the estimate of a submission the gateway may be running unannounced
// (its answer never came: it counts until a callback claims it, or for the
// window it failed in, since nothing can prove such a task absent);
// the generation store inserts a new generation only if every cap's total
// stays within it, checked inside its transaction, so concurrent submits
// cannot overshoot (only a task that costs more than its estimate can).
import "server-only";
import { prisma, type Transaction } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { gatewayCostUsd, gatewayCreditsInCredits } from "@/lib/credits/prices";
import { creditPricing, creditsEnabled } from "@/lib/credits/pricing";
import type { ModelSpec } from "@/lib/models/catalog";
import { ADOPTABLE_SUBMIT_FAILURES } from "./submit-failure";

export type SpendWindow = "hour" | "day" | "week";
export type Spend = { used: number; limit: number; window: SpendWindow; resetsAt: string };

const WINDOW_MS: Record<SpendWindow, number> = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 };
const WINDOW_WORDS: Record<SpendWindow, string> = { hour: "this hour", day: "today", week: "this week" };
/** Money in floating point: totals within a ten-thousandth of the cap are at the cap. */
const EPSILON = 1e-6;

/**
 * A submission's assumed cost in the gateway's credits (USD at this gateway),
 * with the rate lib/credits/prices.ts assumes for "pay-per-use" models: above
 * every published rate, so the cap errs on the side of refusing. The same
 * figure, marked up, is what the submission holds of its owner's credits.
 */
export function estimateCredits(model: ModelSpec, durationSeconds: number | undefined): number {
  return Math.round(gatewayCostUsd(model, durationSeconds) * 10_000) / 10_000;
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

/**
 * Credits the scope has in flight (estimates) plus what succeeded since `since` (charged, or the estimate if unreported),
 * plus the estimates of submissions since `since` whose answer never came (the gateway may be running them).
 * One statement, so one snapshot: a task that finishes while this reads counts once, in flight or charged, never as both;
 * so does an unanswered submission that a callback claims (it becomes PENDING).
 * Grouped by charge, so that an unreported one (null) adds its estimate; there are as many groups as distinct charges.
 */
async function usedCredits(db: Reader, scope: Prisma.GenerationWhereInput, since: Date): Promise<number> {
  const groups = await db.generation.groupBy({
    by: ["state", "creditsConsumed"],
    where: {
      AND: [
        scope,
        {
          OR: [
            { state: { in: ["SUBMITTING", "PENDING"] } },
            { state: "SUCCESS", completedAt: { gte: since } },
            { state: "SUBMIT_FAILED", errorCode: { in: ADOPTABLE_SUBMIT_FAILURES }, completedAt: { gte: since } },
          ],
        },
      ],
    },
    _sum: { costEstimate: true, creditsConsumed: true },
  });
  const total = groups.reduce(
    (sum, group) => sum + ((group.state === "SUCCESS" && group.creditsConsumed !== null ? group._sum.creditsConsumed : group._sum.costEstimate) ?? 0),
    0,
  );
  return Math.round(total * 10_000) / 10_000;
}

/** An owner's own cap: a signed-in account's, or a guest's (which an operator may set lower); 0 is none. */
export const ownerSpendLimit = ({ signedIn }: { signedIn: boolean }) => (signedIn ? env.SPEND_LIMIT_CREDITS : env.SPEND_LIMIT_GUEST_CREDITS);

/** The owner's spend against their cap, or null when there is no cap. */
export async function getSpend({ ownerId, signedIn, now = Date.now() }: { ownerId: string; signedIn: boolean; now?: number }): Promise<Spend | null> {
  const limit = ownerSpendLimit({ signedIn });
  if (limit <= 0) return null;
  const { start, end } = spendWindowBounds(env.SPEND_LIMIT_WINDOW, now);
  const used = await usedCredits(prisma, { ownerId }, start);
  return { used, limit, window: env.SPEND_LIMIT_WINDOW, resetsAt: end.toISOString() };
}

/**
 * The viewer's spend with what the header shows of it (`shown`), in one unit
 * a person knows: their own credits when the kit's credits are on (the cap
 * counts the gateway's, priced here as a hold is), else the share of their
 * cap used. `used` and `limit` stay the cap's own figures, for API clients
 * that track it exactly; the header never shows them.
 */
export type ViewerSpend = Spend & { shown: { unit: "credits" | "percent"; used: number; limit: number } };

export async function showSpend({ ownerId, signedIn }: { ownerId: string; signedIn: boolean }): Promise<ViewerSpend | null> {
  const spend = await getSpend({ ownerId, signedIn });
  if (!spend) return null;
  const limit = inViewerUnits(spend.limit, spend.limit, "down");
  return { ...spend, shown: { unit: creditsEnabled() ? "credits" : "percent", used: Math.min(inViewerUnits(spend.used, spend.limit, "up"), limit), limit } };
}

/** A cap's figure in the viewer's unit (see showSpend). */
function inViewerUnits(gatewayCredits: number, limit: number, rounding: "up" | "down"): number {
  if (creditsEnabled()) return gatewayCreditsInCredits(gatewayCredits, rounding, creditPricing());
  const share = (100 * gatewayCredits) / limit;
  return rounding === "up" ? Math.ceil(share - 1e-9) : Math.floor(share + 1e-9);
}

/** "85 of 90 credits", or "94% of the limit": what a refusal says was used. */
function usedWords(used: number, limit: number): string {
  if (!creditsEnabled()) return `${inViewerUnits(used, limit, "up")}% of the limit`;
  return `${inViewerUnits(used, limit, "up").toLocaleString("en-US")} of ${inViewerUnits(limit, limit, "down").toLocaleString("en-US")} credits`;
}

/** One cap: the lock row that queues its submits, the rows it sums, its limit, and what a refusal says. */
type Cap = { lock: string; scope: Prisma.GenerationWhereInput; limit: number; refuse: (used: number, end: Date) => AppError };

/**
 * The caps a submission is checked against, in the order their locks are
 * taken: always total, address, owner, so that two submits sharing scopes
 * never wait for each other in a cycle.
 */
function capsFor({ ownerId, clientKey }: { ownerId: string; clientKey?: string | null }): Cap[] {
  const caps: Cap[] = [];
  const total = env.SPEND_LIMIT_TOTAL_CREDITS;
  if (total > 0) {
    caps.push({ lock: "total", scope: {}, limit: total, refuse: (_used, end) => totalLimitError(end) });
  }
  const perAddress = env.SPEND_LIMIT_ADDRESS_CREDITS;
  if (clientKey && perAddress > 0) {
    caps.push({ lock: `address:${clientKey}`, scope: { clientKey }, limit: perAddress, refuse: (used, end) => addressLimitError(used, perAddress, end) });
  }
  // Only anonymous submissions carry a client key (lib/generations/submit.ts): they are a guest's.
  const perOwner = ownerSpendLimit({ signedIn: !clientKey });
  if (perOwner > 0) {
    caps.push({ lock: `owner:${ownerId}`, scope: { ownerId }, limit: perOwner, refuse: (used, end) => ownerLimitError(used, perOwner, end) });
  }
  return caps;
}

/**
 * The check the generation store runs inside its insert transaction
 * (lib/generations/store.ts), or undefined when no cap applies. It throws a
 * 429 if the new estimate would take any cap past its limit. Each cap's
 * SpendLock row is written first: on PostgreSQL its row lock queues the
 * concurrent submits of that scope, and each then sums what the previous one
 * committed; on SQLite the transaction holds the one write lock from the first write on.
 */
export function spendLimitCheck({
  ownerId,
  clientKey,
  costEstimate,
  now = Date.now(),
}: {
  ownerId: string;
  clientKey?: string | null;
  costEstimate: number;
  now?: number;
}): ((tx: Transaction) => Promise<void>) | undefined {
  const caps = capsFor({ ownerId, clientKey });
  if (caps.length === 0) return undefined;
  const { start, end } = spendWindowBounds(env.SPEND_LIMIT_WINDOW, now);
  return async (tx) => {
    for (const cap of caps) {
      await tx.$executeRaw`
        INSERT INTO "SpendLock" ("scope", "lockedAt") VALUES (${cap.lock}, ${new Date(now)})
        ON CONFLICT ("scope") DO UPDATE SET "lockedAt" = excluded."lockedAt"`;
      const used = await usedCredits(tx, cap.scope, start);
      if (used + costEstimate > cap.limit + EPSILON) throw withRetryAfter(cap.refuse(used, end), end, now);
    }
  };
}

const resetsAt = (end: Date) => `${end.toISOString().slice(0, 16).replace("T", " ")} UTC`;
const windowWords = () => WINDOW_WORDS[env.SPEND_LIMIT_WINDOW];
const NOTHING_SENT = "Nothing was sent to the gateway.";
const IN_FLIGHT = "Generations still in progress count at their estimate until they finish, and so do submissions the gateway did not answer.";

function ownerLimitError(used: number, limit: number, end: Date): AppError {
  return new AppError(
    "spend_limit",
    `You've used ${usedWords(used, limit)} ${windowWords()}; resets at ${resetsAt(end)}. ${IN_FLIGHT} ${NOTHING_SENT}`,
  );
}

function addressLimitError(used: number, limit: number, end: Date): AppError {
  return new AppError(
    "address_spend_limit",
    `Visitors from your network have used ${usedWords(used, limit)} ${windowWords()} ` +
      `(everyone without a sign-in at your address counts together); resets at ${resetsAt(end)}. ${IN_FLIGHT} ${NOTHING_SENT}`,
  );
}

/** Says when, never how much: the site's total spend is the operator's business. */
function totalLimitError(end: Date): AppError {
  return new AppError(
    "total_spend_limit",
    `This site has reached its spending limit for everyone ${windowWords()}; new videos can be made again after ${resetsAt(end)}. ${NOTHING_SENT}`,
  );
}

function withRetryAfter(error: AppError, end: Date, now: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((end.getTime() - now) / 1000));
  return new AppError(error.code, error.message, undefined, { "Retry-After": String(retryAfter) });
}

