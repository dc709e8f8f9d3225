// The one writer of the kit's credit ledger: every CreditEntry row is written
// here under its idempotency key (the outcome write's capture or release is
// the same rule in SQL, lib/database/outcome-write-*.ts, so it can share that
// write's one transaction). Rows are never updated or deleted; the balance is
// their sum. Writes that may take credits (a hold, a clawback, an adjustment)
// first write the owner's CreditLock row, so that "sum, then insert" is atomic
// on PostgreSQL as SQLite's single writer makes it there (where a SQLite file
// runs one transaction at a time, a submission's hold leaves the row out: the
// hot path's one statement less). A capture or a
// release only gives credits back, so it needs no lock; like every write that
// adds credits, it collects what the owner owes from them (owed.ts).
import "server-only";
import { accountUserIdOf, isAccountOwner, isDeletedAccount } from "@/lib/auth/session";
import { prisma, transactionsSerialized, type Transaction } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { Prisma, type CreditEntryKind } from "@/lib/generated/prisma/client";
import { hitRateLimit } from "@/lib/rate-limit";
import { collectClaimOwedIn, collectOwedIn } from "./owed";
import { takeWelcomeGrant } from "./welcome-ceiling";
import { formatCreditCount as formatCredits } from "./prices";
import { welcomeGrantCredits, welcomeGrantsPerAddress } from "./pricing";

type Reader = Pick<typeof prisma, "$queryRaw">;

/** Each row's idempotency key: a second write of the same fact finds its key taken. */
export const ledgerKey = {
  welcome: (ownerId: string) => `grant:welcome:${ownerId}`,
  /** The claim's take-back of a kept guest's unspent welcome grant (lib/viewer/claim-guest.ts). */
  keptGuestWelcome: (guestId: string) => `claim:welcome:${guestId}`,
  /** What a settlement of a video the claim moved with its hold open pays of that take-back (lib/credits/owed.ts); the outcome write's SQL builds the same key. */
  keptGuestHold: (guestId: string, settlementKey: string) => `claim:welcome:${guestId}:${settlementKey}`,
  hold: (generationId: string) => `hold:${generationId}`,
  capture: (generationId: string) => `capture:${generationId}`,
  release: (generationId: string) => `release:${generationId}`,
  purchase: (checkoutSessionId: string) => `purchase:${checkoutSessionId}`,
  refund: (paymentIntentId: string, cumulative: number) => `refund:${paymentIntentId}:${cumulative}`,
  dispute: (disputeId: string) => `dispute:${disputeId}`,
  disputeWon: (disputeId: string) => `dispute:won:${disputeId}`,
  /** Credits owed collected from an inflow (lib/credits/owed.ts); the outcome write's SQL builds the same key. */
  collect: (inflowKey: string, checkoutSessionId: string) => `collect:${inflowKey}:${checkoutSessionId}`,
} as const;

/** Welcome grants, whoever they were first made for: a guest's grant that moved to an account counts for it. */
const WELCOME_PREFIX = "grant:welcome:";

export type CreditSummary = {
  /** What the owner can spend now: every row summed (open holds already taken). */
  credits: number;
  /** Of what was taken, how much is held by generations still in flight. */
  held: number;
  /** The owner has had a welcome grant. */
  welcomed: boolean;
};

/**
 * The owner's balance, what is held, and whether they were welcomed, in one
 * statement (one snapshot). A hold is open while no capture or release settles its generation.
 */
export async function readCreditSummary(db: Reader, ownerId: string): Promise<CreditSummary> {
  const [row] = await db.$queryRaw<{ credits: bigint | number | null; held: bigint | number | null; welcomed: bigint | number | null }[]>`
    SELECT SUM(e."amount") AS "credits",
      SUM(CASE WHEN e."kind" = 'HOLD' AND NOT EXISTS (SELECT 1 FROM "CreditEntry" s WHERE s."settles" = e."generationId") THEN -e."amount" ELSE 0 END) AS "held",
      MAX(CASE WHEN e."kind" = 'GRANT' AND e."idempotencyKey" LIKE ${`${WELCOME_PREFIX}%`} THEN 1 ELSE 0 END) AS "welcomed"
    FROM "CreditEntry" e WHERE e."ownerId" = ${ownerId}`;
  return { credits: Number(row?.credits ?? 0), held: Number(row?.held ?? 0), welcomed: Number(row?.welcomed ?? 0) === 1 };
}

/** The owner's balance: every row summed, in one statement. */
export async function readCreditBalance(db: Pick<typeof prisma, "creditEntry">, ownerId: string): Promise<number> {
  const { _sum } = await db.creditEntry.aggregate({ where: { ownerId }, _sum: { amount: true } });
  return Number(_sum.amount ?? 0);
}

/** The balance and whether the owner was welcomed, in one statement: what a hold checks on every submission. */
async function readBalanceAndWelcome(db: Reader, ownerId: string): Promise<{ credits: number; welcomed: boolean }> {
  const [row] = await db.$queryRaw<{ credits: bigint | number | null; welcomed: bigint | number | null }[]>`
    SELECT SUM("amount") AS "credits",
      MAX(CASE WHEN "kind" = 'GRANT' AND "idempotencyKey" LIKE ${`${WELCOME_PREFIX}%`} THEN 1 ELSE 0 END) AS "welcomed"
    FROM "CreditEntry" WHERE "ownerId" = ${ownerId}`;
  return { credits: Number(row?.credits ?? 0), welcomed: Number(row?.welcomed ?? 0) === 1 };
}

/** Queues this owner's credit-taking writes behind each other (see the header). */
export async function lockCredits(tx: Transaction, ownerId: string, now = new Date()): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "CreditLock" ("ownerId", "lockedAt") VALUES (${ownerId}, ${now})
    ON CONFLICT ("ownerId") DO UPDATE SET "lockedAt" = excluded."lockedAt"`;
}

/** What a write for a deleted account is told. */
export const ACCOUNT_DELETED = "This account was deleted. Nothing was stored.";

/**
 * For a write of an account's rows that takes no credits (a submission with
 * credits off, an upload): the owner's credit lock, which account deletion
 * holds while it deletes and records the deletion, then a refusal if the
 * account was deleted meanwhile. Taken first in the write's transaction, where
 * a hold takes its lock (after a spending cap's rows only). Guests are never deleted:
 * nothing is locked for them.
 */
export async function lockLiveOwner(tx: Transaction, ownerId: string, now = new Date()): Promise<void> {
  if (!isAccountOwner(ownerId)) return;
  await lockCredits(tx, ownerId, now);
  if (await isDeletedAccount(tx, ownerId)) throw new AppError("unauthorized", ACCOUNT_DELETED);
}

/** What a welcome attempt did: granted, already welcomed, or not welcomed (and why). */
export type WelcomeOutcome = "granted" | "welcomed" | "off" | "address_bound" | "ceiling";

/** Welcome grants are counted per client address over this window (the longest the rate limiter keeps). */
const WELCOME_WINDOW_SECONDS = 86_400;

/**
 * The welcome grant, once per owner, inside a transaction that holds the
 * owner's lock; at most CREDITS_WELCOME_GRANTS_PER_ADDRESS per client address
 * (`visitor`, a keyed hash of it) per day, since a guest is a cookie anyone can
 * drop, and at most CREDITS_WELCOME_GRANTS_PER_DAY on the whole instance
 * (welcome-ceiling.ts). Past either the owner is not welcomed, so a visit on a
 * later day may be.
 * The address's count is written in the same transaction, so it rolls back
 * with a grant that does.
 */
export async function grantWelcomeLocked(tx: Transaction, { ownerId, visitor }: { ownerId: string; visitor: string }): Promise<WelcomeOutcome> {
  const credits = welcomeGrantCredits();
  if (credits <= 0) return "off";
  // Also found by its own key wherever it is now: a claimed guest's grant moved to the account, and is not made again.
  const welcomed = await tx.creditEntry.findFirst({
    where: { OR: [{ idempotencyKey: ledgerKey.welcome(ownerId) }, { ownerId, kind: "GRANT", idempotencyKey: { startsWith: WELCOME_PREFIX } }] },
    select: { id: true },
  });
  if (welcomed) return "welcomed";
  // A guest an account kept was welcomed as that guest, even once the account (and its ledger) is deleted;
  // a deleted account is welcomed by nobody (a balance read that was on its way when it was deleted).
  if (await tx.guestClaim.findUnique({ where: { guestId: ownerId }, select: { guestId: true } })) return "welcomed";
  if (await isDeletedAccount(tx, ownerId)) return "welcomed";
  const bound = welcomeGrantsPerAddress();
  if (bound > 0) {
    const { allowed } = await hitRateLimit({ key: `welcome:${visitor}`, limit: bound, windowSeconds: WELCOME_WINDOW_SECONDS, db: tx });
    if (!allowed) return "address_bound";
  }
  // The instance's daily ceiling last, so that a client past its own bound does not use it up.
  if (!(await takeWelcomeGrant(tx))) return "ceiling";
  const key = ledgerKey.welcome(ownerId);
  await tx.creditEntry.create({ data: { ownerId, kind: "GRANT", amount: credits, idempotencyKey: key, note: "welcome grant" } });
  await collectOwedIn(tx, { ownerId, inflowKey: key, amount: credits, source: "the welcome grant" });
  return "granted";
}

/** Appends one row; the caller made sure the key is new (under the owner's lock, or by a unique fact such as a new generation). */
export async function appendEntry(
  tx: Transaction,
  entry: { ownerId: string; kind: CreditEntryKind; amount: number; idempotencyKey: string; generationId?: string; settles?: string; checkoutSessionId?: string; note?: string },
): Promise<void> {
  if (!Number.isSafeInteger(entry.amount)) throw new RangeError(`A ledger amount must be a whole number of credits: ${entry.amount}`);
  await tx.creditEntry.create({ data: entry });
}

export function insufficientCreditsError({ needed, balance }: { needed: number; balance: number }): AppError {
  return new AppError(
    "insufficient_credits",
    `This video needs ${formatCredits(needed)} and you have ${formatCredits(balance)}. Buy more at /credits. Nothing was sent to the gateway.`,
  );
}

/** A comparison refused whole: what it needs, what is missing. */
export function batchInsufficientCreditsError({ needed, balance }: { needed: number; balance: number }): AppError {
  return new AppError(
    "insufficient_credits",
    `This comparison needs ${formatCredits(needed)} and you have ${formatCredits(balance)}: ${formatCredits(needed - balance)} missing. ` +
      "Buy more at /credits, or compare fewer models. Nothing was sent to the gateway.",
  );
}

/**
 * A submission's hold, in the generation store's insert transaction. A single
 * submission takes the owner's lock (`lock`, before its row's insert, in the
 * store's lock order), then `take` after the insert: one statement that sums
 * the owner's ledger and writes the hold only if the sum covers it, the owner
 * was welcomed and is not a deleted account. Anything else (a first
 * submission, which makes the welcome grant; a refusal, 402 or a deleted
 * account) takes the longer way, `check` then the hold. A comparison
 * `check`s the sum of its videos' holds once (lock included) and `record`s each.
 */
export function creditHold({
  ownerId,
  visitor,
  credits,
  refuse = insufficientCreditsError,
}: {
  ownerId: string;
  visitor: string;
  credits: number;
  refuse?: (shortfall: { needed: number; balance: number }) => AppError;
}) {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new RangeError(`A hold must be a whole number of credits: ${credits}`);
  /** Under the owner's lock: refuses a deleted account or a balance short of `credits`, after the welcome grant an owner never had. */
  const checkLocked = async (tx: Transaction): Promise<void> => {
    // A submission whose account was deleted while it was on its way (deletion holds this lock) writes nothing.
    if (await isDeletedAccount(tx, ownerId)) throw new AppError("unauthorized", ACCOUNT_DELETED);
    const seen = await readBalanceAndWelcome(tx, ownerId);
    let balance = seen.credits;
    if (!seen.welcomed && welcomeGrantCredits() > 0) {
      await grantWelcomeLocked(tx, { ownerId, visitor });
      balance = await readCreditBalance(tx, ownerId);
    }
    if (balance < credits) throw refuse({ needed: credits, balance });
  };
  const record = async (tx: Transaction, generationId: string, share = credits): Promise<void> => {
    await appendEntry(tx, { ownerId, kind: "HOLD", amount: -share, idempotencyKey: ledgerKey.hold(generationId), generationId });
  };
  return {
    /** Where the engine runs one transaction at a time, the transaction is the lock already: one statement less on every submission. */
    async lock(tx: Transaction, now = new Date()): Promise<void> {
      if (!transactionsSerialized) await lockCredits(tx, ownerId, now);
    },
    async check(tx: Transaction, now = new Date()): Promise<void> {
      await lockCredits(tx, ownerId, now);
      await checkLocked(tx);
    },
    /** `share`: a batch's hold is written per generation, each its own share of what `check` covered. */
    record,
    /** After `lock` and the generation's insert: its hold, or the refusal `check` would make. */
    async take(tx: Transaction, generationId: string): Promise<void> {
      if (await holdIfCovered(tx, { ownerId, credits, generationId })) return;
      await checkLocked(tx);
      await record(tx, generationId);
    },
  };
}

/**
 * The hold in one statement, under the owner's lock (the lock row's, taken
 * by an earlier statement, so that this one's snapshot holds every row
 * committed before it; or the transaction itself, where the engine runs one
 * at a time): the ledger's sum, whether the owner was welcomed and whether
 * the account was deleted are read by the INSERT that writes the hold, which
 * writes nothing unless all three allow it. True if it wrote the hold.
 */
async function holdIfCovered(tx: Transaction, { ownerId, credits, generationId }: { ownerId: string; credits: number; generationId: string }): Promise<boolean> {
  const userId = accountUserIdOf(ownerId);
  const live = userId === null ? Prisma.empty : Prisma.sql`AND NOT EXISTS (SELECT 1 FROM "DeletedAccount" WHERE "userId" = ${userId})`;
  // With welcome grants off, no owner waits for one.
  const welcomed =
    welcomeGrantCredits() > 0
      ? Prisma.sql`AND EXISTS (SELECT 1 FROM "CreditEntry" WHERE "ownerId" = ${ownerId} AND "kind" = 'GRANT' AND "idempotencyKey" LIKE ${`${WELCOME_PREFIX}%`})`
      : Prisma.empty;
  const written = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "createdAt")
    SELECT ${ownerId}, 'HOLD', ${credits === 0 ? 0 : -credits}, ${ledgerKey.hold(generationId)}, ${generationId}, ${new Date()}
    WHERE (SELECT COALESCE(SUM("amount"), 0) FROM "CreditEntry" WHERE "ownerId" = ${ownerId}) >= ${credits} ${welcomed} ${live}
    RETURNING "id"`;
  return written.length === 1;
}

/**
 * Gives a generation's hold back, in the transaction that moved it to a state
 * that costs nothing (SUBMIT_FAILED): once, and never beside a capture (the
 * `settles` column is unique). Returns the credits released (0 when there was
 * no hold or it was already settled).
 */
export async function releaseHoldIn(tx: Transaction, { generationId, ownerId, note }: { generationId: string; ownerId: string; note?: string }): Promise<number> {
  const hold = await tx.creditEntry.findUnique({ where: { idempotencyKey: ledgerKey.hold(generationId) }, select: { amount: true } });
  if (!hold) return 0;
  const settled = await tx.creditEntry.findUnique({ where: { settles: generationId }, select: { id: true } });
  if (settled) return 0;
  const key = ledgerKey.release(generationId);
  await appendEntry(tx, { ownerId, kind: "RELEASE", amount: -hold.amount, idempotencyKey: key, generationId, settles: generationId, note });
  // What a guest claim left owed comes first: the guest's welcome credits never pay the account's own debts.
  const taken = await collectClaimOwedIn(tx, { generationId, ownerId, settlementKey: key, returned: -hold.amount, source: "a released hold" });
  await collectOwedIn(tx, { ownerId, inflowKey: key, amount: -hold.amount - taken, source: "a released hold" });
  return -hold.amount;
}

/**
 * Failed submissions whose hold is still open (a task the gateway may have
 * started could still claim them), the longest failed first: what the cron
 * looks through for holds nothing will settle.
 */
export async function listOpenHoldsOfFailedSubmissions({ limit }: { limit: number }): Promise<{ generationId: string; completedAt: Date | null }[]> {
  const rows = await prisma.$queryRaw<{ id: string; completedAt: Date | string | null }[]>`
    SELECT g."id", g."completedAt" FROM "Generation" g
    JOIN "CreditEntry" h ON h."generationId" = g."id" AND h."kind" = 'HOLD'
    WHERE g."state" = 'SUBMIT_FAILED' AND NOT EXISTS (SELECT 1 FROM "CreditEntry" s WHERE s."settles" = g."id")
    ORDER BY g."completedAt" ASC LIMIT ${limit}`;
  return rows.map((r) => ({ generationId: r.id, completedAt: r.completedAt === null ? null : new Date(r.completedAt) }));
}

export { formatCredits };
