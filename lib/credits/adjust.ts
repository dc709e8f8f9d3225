// The operator's hand on the ledger: grant or take an owner's credits, with a
// reason. A take is refused past what the owner has (the balance never goes
// below zero); a grant first pays what the owner owes (lib/credits/owed.ts);
// a retried form (the same key) changes nothing; a guest an account kept is
// credited on that account.
import "server-only";
import { randomUUID } from "node:crypto";
import { isUniqueViolation, retryTransaction } from "@/lib/database/errors";
import { prisma } from "@/lib/db";
import { publishCreditsChange } from "@/lib/events";
import { AppError } from "@/lib/errors";
import { accountOwnerId, isDeletedAccount } from "@/lib/auth/session";
import { appendEntry, formatCredits, lockCredits, readCreditBalance } from "./ledger";
import { collectOwedIn } from "./owed";

export const ADJUSTMENT_REASON_MAX_LENGTH = 200;
const MAX_ADJUSTMENT = 1_000_000;

export async function adjustCredits({
  ownerId,
  amount,
  reason,
  idempotencyKey = randomUUID(),
}: {
  ownerId: string;
  /** Whole credits: positive grants, negative takes. */
  amount: number;
  reason: string;
  /** One per form: the same key again is the same adjustment. */
  idempotencyKey?: string;
}): Promise<{ applied: boolean; balance: number }> {
  const why = reason.trim();
  const named = ownerId.trim();
  const fields: Record<string, string[]> = {};
  if (!ownerId.trim()) fields.ownerId = ["Name the owner (a visitor id or user:<id>)."];
  if (!Number.isSafeInteger(amount) || amount === 0 || Math.abs(amount) > MAX_ADJUSTMENT) fields.amount = [`A whole number of credits, not 0, at most ${MAX_ADJUSTMENT.toLocaleString("en-US")} either way.`];
  if (!why || why.length > ADJUSTMENT_REASON_MAX_LENGTH) fields.reason = [`Say why, in at most ${ADJUSTMENT_REASON_MAX_LENGTH} characters.`];
  if (Object.keys(fields).length > 0) throw new AppError("invalid_input", "Check the highlighted fields.", fields);

  try {
    const result = await retryTransaction(
      () =>
        prisma.$transaction(async (tx) => {
          await lockCredits(tx, named);
          // A guest an account kept is that account now: the credits land where the guest's work went. Read under
          // the guest's lock, which a claim takes first, so a claim running now has committed or not begun.
          const claimedBy = (await tx.guestClaim.findUnique({ where: { guestId: named }, select: { userId: true } }))?.userId;
          const ownerId = claimedBy ? accountOwnerId(claimedBy) : named;
          if (claimedBy) await lockCredits(tx, ownerId);
          if (await isDeletedAccount(tx, ownerId)) throw new AppError("gone", "That account was deleted: there is nobody to credit.");
          const key = `adjustment:${idempotencyKey}`;
          if (await tx.creditEntry.findUnique({ where: { idempotencyKey: key }, select: { id: true } })) {
            return { applied: false, balance: await readCreditBalance(tx, ownerId), ownerId };
          }
          const balance = await readCreditBalance(tx, ownerId);
          if (balance + amount < 0) {
            throw new AppError("conflict", `${ownerId} has ${formatCredits(balance)}: at most that can be taken.`);
          }
          await appendEntry(tx, { ownerId, kind: "ADJUSTMENT", amount, idempotencyKey: key, note: why });
          const collected = await collectOwedIn(tx, { ownerId, inflowKey: key, amount, source: "a grant by the operator" });
          return { applied: true, balance: balance + amount - collected, ownerId };
        }),
      { waitMs: 5_000 },
    );
    // The owner's open tabs hear it and re-read their balance.
    if (result.applied) await publishCreditsChange(result.ownerId);
    return { applied: result.applied, balance: result.balance };
  } catch (error) {
    // The same key for another owner: that adjustment was made.
    if (isUniqueViolation(error)) return { applied: false, balance: await readCreditBalance(prisma, ownerId) };
    throw error;
  }
}
