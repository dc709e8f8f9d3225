// The generation store: every write of a generation row goes through here and
// is announced to live galleries ("generation X changed", with its owner and
// what its card shows, read back by the write itself), except a task's
// outcome, which is one write of its own with its delivery row
// (apply-task-snapshot.ts, lib/database/outcome-write.ts) and announces
// through announceOutcome. A write that holds, captures or gives back credits
// announces the card's new charge with it. A soft delete is announced as such, so that every
// other tab showing the card drops it. A submission's credit hold is taken in
// its insert's transaction, and given back in the transaction that fails it,
// unless the gateway may have started its task anyway (then the cron gives it
// back once that task is no longer expected to claim it).
import "server-only";
import { isAccountOwner } from "@/lib/auth/session";
import { batchInsufficientCreditsError, creditHold, lockLiveOwner, releaseHoldIn } from "@/lib/credits/ledger";
import { retryTransaction } from "@/lib/database/errors";
import { prisma, type Transaction } from "@/lib/db";
import { publishGenerationChange } from "@/lib/events";
import type { OutcomeChange, OutcomeRow } from "@/lib/database/outcome-write";
import type { Prisma } from "@/lib/generated/prisma/client";
import { spendLimitCheck } from "@/lib/generations/spend-limit";
import { claimUploadsFor } from "@/lib/uploads/upload-store";
import { readCreditCharge } from "./charges";
import { toLiveCard, type CreditCharge, type LiveCardRow } from "./generation";
import { awaitsAdoption } from "./submit-failure";

/** `charge`: set when the write changed it (left out, the card keeps the one it shows). */
type Announced = LiveCardRow & { id: string; ownerId: string; deletedAt: Date | null; charge?: CreditCharge | null };
const ANNOUNCED = {
  id: true,
  ownerId: true,
  deletedAt: true,
  state: true,
  createdAt: true,
  updatedAt: true,
  completedAt: true,
  creditsConsumed: true,
  errorCode: true,
  errorMessage: true,
  resultUrls: true,
  resultUrlsDropped: true,
  callbackEnabled: true,
  notFoundSince: true,
} as const satisfies Record<Exclude<keyof Announced, "mediaCopies" | "charge">, true>;

/** How long a submit waits out a busy database (a locked SQLite file, a full pool) before it fails. */
const BUSY_WAIT_MS = 10_000;
/** One owner's concurrent submits queue on the lock row; on PostgreSQL they also wait for a pooled connection. */
const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 10_000 };

/**
 * Inserts a generation unless it would take its owner, its client address
 * (anonymous submissions: `clientKey`) or everyone together past a spending
 * cap (a 429), or its owner's credits cannot cover `hold` (a 402,
 * insufficient_credits), in which case nothing is stored: the caps and the
 * balance are checked inside the insert's transaction
 * (lib/generations/spend-limit.ts, lib/credits/ledger.ts), so concurrent
 * submits cannot overshoot, and the hold is written with the row. The
 * uploads it uses are claimed in the same transaction: if one was deleted
 * since it was checked, nothing is stored and UploadsGoneError is thrown. The
 * new card is announced, not awaited.
 */
export async function insertGeneration(
  data: Prisma.GenerationUncheckedCreateInput & { ownerId: string; costEstimate: number },
  {
    uploadIds = [],
    hold: holding,
    now = Date.now(),
  }: {
    uploadIds?: string[];
    /** The credits to hold, and the client's address key (visitorKey), which bounds the welcome grant a first submission may make. */
    hold?: { credits: number; visitor: string };
    now?: number;
  } = {},
) {
  const check = spendLimitCheck({ ownerId: data.ownerId, clientKey: data.clientKey, costEstimate: data.costEstimate, now });
  const hold = holding && creditHold({ ownerId: data.ownerId, ...holding });
  // An account's row is written under its credit lock even when nothing is held: deletion holds that lock, so a
  // submission racing it either lands first (and is deleted with the account) or finds it deleted.
  const row =
    check || hold || uploadIds.length || isAccountOwner(data.ownerId)
      ? await retryTransaction(
          () =>
            prisma.$transaction(async (tx) => {
              // Locks in one order (the caps' rows, then the owner's credits), so that two submits never wait for each other in a cycle.
              await check?.(tx);
              if (hold) await hold.lock(tx, new Date(now));
              else await lockLiveOwner(tx, data.ownerId, new Date(now));
              const created = await tx.generation.create({ data });
              await claimUploadsFor(tx, { ids: uploadIds, ownerId: data.ownerId, generationId: created.id });
              // The balance is read by the hold's own write; a refusal (402, a deleted account) rolls the row back.
              await hold?.take(tx, created.id);
              return created;
            }, TRANSACTION_OPTIONS),
          { waitMs: BUSY_WAIT_MS },
        )
      : await prisma.generation.create({ data });
  void announceGenerationRow({ ...row, charge: holding ? { status: "held", credits: holding.credits } : null });
  return row;
}

type NewGeneration = { data: Prisma.GenerationUncheckedCreateInput & { ownerId: string; costEstimate: number }; uploadIds: string[]; credits: number | null };

/**
 * Inserts a comparison's generations, all or none, in one transaction: the
 * spending caps are checked against the sum of their estimates (a batch counts
 * as its videos), the owner's credits against the sum of their holds (a 402
 * that says how many are missing), then `createBatch` writes the batch row and
 * each generation is inserted with its own hold and uploads. Of ten batches
 * racing for one balance, each finds the sum the previous ones left, under the
 * owner's credit lock, so none is ever partly held. Every card is announced.
 */
export async function insertGenerationBatch(
  videos: NewGeneration[],
  { visitor, createBatch, now = Date.now() }: { visitor: string; createBatch: (tx: Transaction) => Promise<{ id: string }>; now?: number },
) {
  const [first] = videos;
  if (!first || videos.some((v) => v.data.ownerId !== first.data.ownerId || v.data.clientKey !== first.data.clientKey)) {
    throw new RangeError("A batch's generations share one owner and client address");
  }
  const costEstimate = videos.reduce((sum, v) => sum + v.data.costEstimate, 0);
  const check = spendLimitCheck({ ownerId: first.data.ownerId, clientKey: first.data.clientKey, costEstimate, now });
  const held = videos.every((v) => v.credits === null) ? null : videos.reduce((sum, v) => sum + (v.credits ?? 0), 0);
  const hold = held === null ? null : creditHold({ ownerId: first.data.ownerId, visitor, credits: held, refuse: batchInsufficientCreditsError });
  const { batch, rows } = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        // The same lock order as a single submit's: the caps' rows, then the owner's credits (taken with credits off
        // too, as a single submit's: an account deleted meanwhile gets nothing).
        await check?.(tx);
        if (hold) await hold.check(tx, new Date(now));
        else await lockLiveOwner(tx, first.data.ownerId, new Date(now));
        const batch = await createBatch(tx);
        const rows = [];
        for (const video of videos) {
          const created = await tx.generation.create({ data: { ...video.data, batchId: batch.id } });
          await claimUploadsFor(tx, { ids: video.uploadIds, ownerId: created.ownerId, generationId: created.id });
          if (hold && video.credits !== null) await hold.record(tx, created.id, video.credits);
          rows.push(created);
        }
        return { batch, rows };
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
  rows.forEach((row, i) => {
    const credits = videos[i]!.credits;
    void announceGenerationRow({ ...row, charge: credits === null ? null : { status: "held", credits } });
  });
  return { batch, rows };
}

/**
 * Conditional single-row update, `UPDATE … WHERE id = ? AND <condition>`: true
 * if the row matched and was updated; a state change is announced.
 *
 * updateManyAndReturn, not update + P2025: "nothing matched" is no row, not an
 * error, and the row it returns is what the event carries, so a state change
 * is published beside the write without a second read.
 */
export async function updateGenerationIf({
  where,
  data,
}: {
  where: Prisma.GenerationWhereInput & { id: string };
  data: Prisma.GenerationUpdateManyMutationInput;
}): Promise<boolean> {
  const [row] = await prisma.generation.updateManyAndReturn({ where, data, select: ANNOUNCED });
  if (row && data.state !== undefined) await announceGenerationRow(row);
  return row !== undefined;
}

/**
 * A submission the gateway refused or never answered: SUBMITTING →
 * SUBMIT_FAILED (never charged), and its credit hold given back in the same
 * transaction, except where the gateway may have started the task anyway
 * (awaitsAdoption): its callback may still claim the generation, and its
 * SUCCESS then captures the hold. Conditional like updateGenerationIf; true
 * if the row moved.
 */
export async function failSubmission({ id, data }: { id: string; data: Prisma.GenerationUpdateManyMutationInput & { errorCode: string } }): Promise<boolean> {
  const row = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        const [failed] = await tx.generation.updateManyAndReturn({
          where: { id, state: "SUBMITTING" },
          data: { ...data, state: "SUBMIT_FAILED", creditsConsumed: 0 },
          select: ANNOUNCED,
        });
        if (!failed || awaitsAdoption(failed)) return failed;
        const released = await releaseHoldIn(tx, { generationId: id, ownerId: failed.ownerId, note: `submission failed: ${data.errorCode}` });
        return withRelease(failed, released);
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
  if (row) await announceGenerationRow(row);
  return row !== undefined;
}

/**
 * Fails, at once, the submissions still SUBMITTING that were created before
 * `createdBefore` with callbacks on or off: the process died mid-submit. Never
 * charged: without callbacks their holds are given back with them; with
 * callbacks a task the gateway started may still claim them, so their holds
 * wait for the cron (releaseHoldOf). Each row is announced. Returns how many it failed.
 */
export async function failAbandonedSubmits({
  callbackEnabled,
  createdBefore,
  errorMessage,
}: {
  callbackEnabled: boolean;
  createdBefore: Date;
  errorMessage: string;
}): Promise<number> {
  const rows = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        const failed = await tx.generation.updateManyAndReturn({
          where: { state: "SUBMITTING", callbackEnabled, createdAt: { lt: createdBefore } },
          data: { state: "SUBMIT_FAILED", creditsConsumed: 0, errorCode: "submit_interrupted", errorMessage, completedAt: new Date() },
          select: ANNOUNCED,
        });
        const announced: Announced[] = [];
        for (const row of failed) {
          const released = awaitsAdoption(row) ? 0 : await releaseHoldIn(tx, { generationId: row.id, ownerId: row.ownerId, note: "submission interrupted" });
          announced.push(withRelease(row, released));
        }
        return announced;
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
  for (const row of rows) await announceGenerationRow(row);
  return rows.length;
}

/**
 * Gives back the credit hold of a generation that still matches `where` (a
 * failed submission whose task never claimed it, a task the gateway has lost):
 * once (releaseHoldIn's keys), whatever how many cron runs or polls ask.
 * The row is written first, so an adoption or an outcome racing this waits
 * for it and then finds the hold settled (a SUCCESS then captures nothing).
 * Returns the credits released, 0 when the row no longer matches or the hold
 * was already settled. A release is announced: the card says it was given back.
 */
export async function releaseHoldOf({ id, where, note }: { id: string; where: Prisma.GenerationWhereInput; note: string }): Promise<number> {
  const { row, released } = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        const [row] = await tx.generation.updateManyAndReturn({ where: { ...where, id }, data: { updatedAt: new Date() }, select: ANNOUNCED });
        return { row, released: row ? await releaseHoldIn(tx, { generationId: id, ownerId: row.ownerId, note }) : 0 };
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
  if (row && released > 0) await announceGenerationRow(withRelease(row, released));
  return released;
}

/** The row to announce after a release in its write: with the card's new charge when credits were given back. */
const withRelease = (row: Announced, released: number): Announced => (released > 0 ? { ...row, charge: { status: "released", credits: released } } : row);

/**
 * Deleting from the gallery is a soft delete: the row, its credits and its
 * delivery log stay for accounting, and a task still in progress keeps being
 * followed (callbacks, polling and the cron do not look at deletedAt), so its
 * outcome is recorded even though nobody sees it. Only its owner (and /admin)
 * can still open it.
 *
 * "hidden" by this call, or "already_hidden" by an earlier one (deleting twice
 * is not an error); "not_found" when it does not exist or is not this owner's
 * (a showcase card of someone else's, with GALLERY_SCOPE=shared).
 */
export async function hideGeneration({ id, ownerId }: { id: string; ownerId: string }): Promise<"hidden" | "already_hidden" | "not_found"> {
  const [row] = await prisma.generation.updateManyAndReturn({
    where: { id, ownerId, deletedAt: null },
    // Its public link dies with it (the public page also refuses deleted rows).
    data: { deletedAt: new Date(), ...NOT_SHARED },
    select: ANNOUNCED,
  });
  if (row) {
    await announceGenerationRow(row);
    return "hidden";
  }
  return (await prisma.generation.count({ where: { id, ownerId } })) === 1 ? "already_hidden" : "not_found";
}

const NOT_SHARED = { shareKey: null, shareSeed: null, sharedAt: null } as const;

/**
 * Shares the owner's finished video under a new public link (`key`, the hash
 * of its token, and `seed`, what the token is derived from:
 * lib/sharing/share-token.ts). An earlier link of the same video is replaced,
 * so it stops working. Conditional: the owner's own, Ready and not deleted;
 * null when nothing matched. Not announced: a live card does not carry sharing.
 */
export async function shareGenerationRow({
  id,
  ownerId,
  key,
  seed,
  showPrompt,
  now = new Date(),
}: {
  id: string;
  ownerId: string;
  key: string;
  seed: string;
  showPrompt: boolean;
  now?: Date;
}): Promise<Date | null> {
  const { count } = await prisma.generation.updateMany({
    where: { id, ownerId, state: "SUCCESS", deletedAt: null },
    data: { shareKey: key, shareSeed: seed, sharedAt: now, shareShowsPrompt: showPrompt },
  });
  return count === 1 ? now : null;
}

/**
 * Stops sharing: the link's hash is gone, so the next request for it (page,
 * file or player, on any instance) finds nothing. True when the owner has
 * such a generation, shared or not (stopping twice is not an error).
 */
export async function unshareGenerationRow({ id, ownerId }: { id: string; ownerId: string }): Promise<boolean> {
  const { count } = await prisma.generation.updateMany({ where: { id, ownerId }, data: NOT_SHARED });
  return count === 1;
}

/**
 * For a change the card shows that is not a generation write (a media copy
 * finished): reads what the event carries, copies and charge included (a tab
 * keeps the latest event of a card, so this one must not drop what the
 * outcome's said), and publishes it.
 */
export async function announceGenerationChange({ id }: { id: string }): Promise<void> {
  try {
    const [row, charge] = await Promise.all([prisma.generation.findUnique({ where: { id }, select: { ...ANNOUNCED, mediaCopies: true } }), readCreditCharge(id)]);
    if (row) await announceGenerationRow({ ...row, charge });
  } catch (error) {
    // The write itself succeeded; browsers catch up by their safety-net poll.
    console.warn(`[framehook] could not announce the change of ${id}:`, error);
  }
}

/**
 * A task's outcome, from the row the outcome write returned and what it set,
 * with the charge its settlement left (undefined: unchanged): no read. It
 * leaves the row terminal, so nothing about polling is left to say.
 */
export function announceOutcome(row: OutcomeRow, change: Extract<OutcomeChange, { kind: "terminal" }>, charge?: CreditCharge): Promise<void> {
  return announceGenerationRow({
    ...row,
    ...change,
    completedAt: row.updatedAt,
    notFoundSince: null,
    ...(charge ? { charge } : {}),
  });
}

/**
 * Moves every generation (and comparison) of `from` to `to` inside the caller's transaction
 * (the guest → account claim, lib/viewer/claim-guest.ts, which holds both
 * owners' credit locks). Idempotency keys are "<owner>:<key>": re-prefixed,
 * except one `to` already used (its own row keeps it). Returns how many moved
 * and the newest `announce` of them, which the caller announces once its
 * transaction committed (announceGenerationChange). Those whose credit hold is
 * still open are marked `claimedFrom`: their settlement pays what the claim
 * left owed (lib/credits/owed.ts).
 */
export async function moveGenerationsIn(tx: Transaction, { from, to, announce }: { from: string; to: string; announce: number }): Promise<{ moved: number; ids: string[] }> {
  const start = `${from}:`.length + 1;
  await tx.$executeRaw`UPDATE "Generation" SET "idempotencyKey" = NULL
    WHERE "ownerId" = ${from} AND "idempotencyKey" IS NOT NULL
      AND (${to} || ':' || substr("idempotencyKey", ${start})) IN (SELECT "idempotencyKey" FROM "Generation" WHERE "ownerId" = ${to} AND "idempotencyKey" IS NOT NULL)`;
  await tx.$executeRaw`UPDATE "Generation" SET "idempotencyKey" = ${to} || ':' || substr("idempotencyKey", ${start})
    WHERE "ownerId" = ${from} AND "idempotencyKey" IS NOT NULL`;
  const newest = await tx.generation.findMany({ where: { ownerId: from }, select: { id: true }, orderBy: { createdAt: "desc" }, take: announce });
  await tx.$executeRaw`UPDATE "Generation" SET "claimedFrom" = ${from}
    WHERE "ownerId" = ${from}
      AND EXISTS (SELECT 1 FROM "CreditEntry" h WHERE h."generationId" = "Generation"."id" AND h."kind" = 'HOLD')
      AND NOT EXISTS (SELECT 1 FROM "CreditEntry" s WHERE s."settles" = "Generation"."id")`;
  const moved = (await tx.generation.updateMany({ where: { ownerId: from }, data: { ownerId: to } })).count;
  // A comparison is its generations' owner's: it moves once none of them stayed with `from`. On PostgreSQL each
  // statement sees what committed before it started, and a guest's comparison submitted without credits takes no
  // lock: one that committed after the update above began has videos it did not move, so it stays whole with the
  // guest (the next claim moves it). Its key keeps the guest's prefix (a repeat after the claim makes a new batch).
  await tx.$executeRaw`UPDATE "Batch" SET "ownerId" = ${to}, "updatedAt" = ${new Date()}
    WHERE "ownerId" = ${from} AND NOT EXISTS (SELECT 1 FROM "Generation" AS g WHERE g."batchId" = "Batch"."id" AND g."ownerId" = ${from})`;
  return { moved, ids: newest.map((g) => g.id) };
}

/**
 * Deletes every generation of `ownerId` (their deliveries and copy rows go
 * with them, and their comparisons) inside the caller's transaction (account deletion,
 * lib/viewer/delete-account.ts); returns how many, and the storage keys of
 * their stored copies and stills, which the caller deletes once its
 * transaction committed. Not announced: the owner is gone, and so are its tabs.
 */
export async function deleteGenerationsOfIn(tx: Transaction, { ownerId }: { ownerId: string }): Promise<{ deleted: number; storageKeys: string[] }> {
  const copies = await tx.mediaCopy.findMany({ where: { generation: { ownerId } }, select: { storageKey: true, stillKey: true } });
  const deleted = (await tx.generation.deleteMany({ where: { ownerId } })).count;
  await tx.batch.deleteMany({ where: { ownerId } });
  return { deleted, storageKeys: copies.flatMap((c) => [c.storageKey, c.stillKey]).filter((k): k is string => Boolean(k)) };
}

/** Publishes a row the writer already holds: no read, and in the order of the writes. */
function announceGenerationRow(row: Announced): Promise<void> {
  return publishGenerationChange({
    id: row.id,
    state: row.state,
    updatedAt: row.updatedAt.toISOString(),
    ownerId: row.ownerId,
    ...(row.deletedAt ? { deleted: true } : { card: row.charge === undefined ? toLiveCard(row) : { ...toLiveCard(row), charge: row.charge } }),
  });
}
