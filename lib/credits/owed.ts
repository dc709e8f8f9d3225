// Credits owed: what a refund or a dispute could not take back because the
// owner had already spent or held it. It is recorded on the purchase
// (creditsOwed) and taken from the owner's next credits, in the same write
// that adds them: a released hold, what a capture gives back, a purchase, a
// grant. Each such write collects min(what is owed, what it adds), oldest
// purchase first, as COLLECT rows keyed "collect:<the inflow's key>:<session>",
// so the balance never goes below zero and a retried inflow collects once.
//
// Ordering: an inflow locks the owner's purchases before reading what they
// owe, and a refund or dispute locks them before reading the balance it takes
// from. So on PostgreSQL a release that lands while a refund is being written
// either is seen by the refund (which then takes it) or waits and sees the
// debt the refund recorded (and collects it): never neither. The outcome
// write's SQL (lib/database/outcome-write-*.ts) follows the same rule.
import "server-only";
import type { Transaction } from "@/lib/db";
import { appendEntry, ledgerKey } from "./ledger";

/** Where collected credits came from, as the owner's history names it. */
export type OwedSource = "a released hold" | "a finished video's unused hold" | "a purchase" | "the welcome grant" | "a grant by the operator" | "a won dispute";

/** Takes the row lock of every purchase of the owner: what they owe is read after it (see the header). */
export async function lockPurchases(tx: Transaction, ownerId: string): Promise<void> {
  await tx.purchase.updateMany({ where: { ownerId }, data: { creditsCollected: { increment: 0 } } });
}

/**
 * Collects what the owner owes from `amount` credits just added under
 * `inflowKey`, in the same transaction. Returns the credits collected (at most `amount`).
 */
export async function collectOwedIn(tx: Transaction, { ownerId, inflowKey, amount, source }: { ownerId: string; inflowKey: string; amount: number; source: OwedSource }): Promise<number> {
  if (amount <= 0) return 0;
  await lockPurchases(tx, ownerId);
  const purchases = await tx.purchase.findMany({
    where: { ownerId },
    orderBy: [{ createdAt: "asc" }, { checkoutSessionId: "asc" }],
    select: { checkoutSessionId: true, creditsOwed: true, creditsCollected: true },
  });
  let left = amount;
  for (const purchase of purchases) {
    const outstanding = purchase.creditsOwed - purchase.creditsCollected;
    if (outstanding <= 0) continue;
    const take = Math.min(outstanding, left);
    await appendEntry(tx, {
      ownerId,
      kind: "COLLECT",
      amount: -take,
      idempotencyKey: ledgerKey.collect(inflowKey, purchase.checkoutSessionId),
      checkoutSessionId: purchase.checkoutSessionId,
      note: source,
    });
    await tx.purchase.update({ where: { checkoutSessionId: purchase.checkoutSessionId }, data: { creditsCollected: { increment: take } } });
    left -= take;
    if (left === 0) break;
  }
  return amount - left;
}

/**
 * What a settlement of a generation a guest claim moved with its hold open
 * (Generation.claimedFrom) pays of the welcome credits that claim could not
 * take back (lib/viewer/claim-guest.ts): free credits count as spent first, so
 * what those holds give back (`returned`) refills the bought credits they held
 * (heldBought) before it pays welcomeOwed. It comes before the owner's own debts
 * (collectOwedIn, with what is left): the guest's welcome credits are never the
 * account's to pay them with. Under the claim's row lock; a row (0 credits when nothing is
 * taken) is written while the debt is open, once per settlement (its key). The
 * outcome write's SQL (lib/database/outcome-write-*.ts) is the same rule.
 */
export async function collectClaimOwedIn(
  tx: Transaction,
  { generationId, ownerId, settlementKey, returned, source }: { generationId: string; ownerId: string; settlementKey: string; returned: number; source: OwedSource },
): Promise<number> {
  if (returned <= 0) return 0;
  const guestId = (await tx.generation.findUnique({ where: { id: generationId }, select: { claimedFrom: true } }))?.claimedFrom;
  if (!guestId) return 0;
  // Locks the claim's row, then reads its latest version.
  if (!(await tx.guestClaim.updateMany({ where: { guestId }, data: { heldReturned: { increment: 0 } } })).count) return 0;
  const claim = await tx.guestClaim.findUniqueOrThrow({ where: { guestId }, select: { welcomeOwed: true, heldBought: true, heldReturned: true } });
  if (claim.heldReturned >= claim.heldBought + claim.welcomeOwed) return 0;
  const paid = (returnedSoFar: number) => Math.min(claim.welcomeOwed, Math.max(0, returnedSoFar - claim.heldBought));
  const take = Math.max(0, paid(claim.heldReturned + returned) - paid(claim.heldReturned));
  await appendEntry(tx, { ownerId, kind: "ADJUSTMENT", amount: -take, idempotencyKey: ledgerKey.keptGuestHold(guestId, settlementKey), generationId, note: source });
  await tx.guestClaim.update({ where: { guestId }, data: { heldReturned: { increment: returned } } });
  return take;
}

/** What the owner still owes, summed over their purchases. */
export async function readCreditsOwed(tx: Pick<Transaction, "purchase">, ownerId: string): Promise<number> {
  const { _sum } = await tx.purchase.aggregate({ where: { ownerId }, _sum: { creditsOwed: true, creditsCollected: true } });
  return Number(_sum.creditsOwed ?? 0) - Number(_sum.creditsCollected ?? 0);
}
