// A chargeback on a purchase. The payment webhook maps Stripe's dispute
// events to one of three changes, in whatever order and however often they come:
//   opened (charge.dispute.created)          → the pack's credits are taken back, like a full
//                                              refund: from the balance, the rest owed (owed.ts)
//   won (closed: won, or an inquiry closed)  → what the dispute took is given back, once; what
//                                              it still had owed is forgiven
//   lost (closed: lost)                      → what it took stays taken (taken now if the open
//                                              event never came)
// The purchase's disputeStatus says where the dispute is, read and written
// under its owner's locks: a repeat, or an opening that arrives after the
// close, changes nothing; the ledger keys ("dispute:<id>", "dispute:won:<id>")
// make a second row impossible whatever happens.
import "server-only";
import { retryTransaction } from "@/lib/database/errors";
import { prisma, type Transaction } from "@/lib/db";
import { publishCreditsChange } from "@/lib/events";
import type { Purchase } from "@/lib/generated/prisma/client";
import { appendEntry, ledgerKey } from "./ledger";
import { collectOwedIn } from "./owed";
import { lockPurchaseOwner, owedNote, takeBackCredits } from "./purchases";

export type DisputeChange = "opened" | "won" | "lost";

export type DisputeResult =
  | { known: false }
  | { known: true; ownerId: string; status: string | null; taken: number; owed: number; returned: number; otherDispute?: string };

const BUSY_WAIT_MS = 10_000;
const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 10_000 };

/** Applies one dispute event to the purchase paid by `paymentIntentId`; { known: false } when no purchase was paid by it. */
export async function applyDispute({ paymentIntentId, disputeId, change }: { paymentIntentId: string; disputeId: string; change: DisputeChange }): Promise<DisputeResult> {
  const purchase = await prisma.purchase.findUnique({ where: { paymentIntentId } });
  if (!purchase) return { known: false };
  const result = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        const current = await lockPurchaseOwner(tx, purchase);
        // A payment is disputed once; another dispute id is not this one's to close.
        if (current.disputeId && current.disputeId !== disputeId) {
          return { known: true as const, ownerId: current.ownerId, status: current.disputeStatus, taken: 0, owed: 0, returned: 0, otherDispute: current.disputeId };
        }
        return { known: true as const, ownerId: current.ownerId, ...(await changeDispute(tx, current, disputeId, change)) };
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
  if (result.taken > 0 || result.returned > 0) await publishCreditsChange(result.ownerId);
  return result;
}

async function changeDispute(tx: Transaction, purchase: Purchase, disputeId: string, change: DisputeChange): Promise<{ status: string | null; taken: number; owed: number; returned: number }> {
  const status = purchase.disputeStatus;
  const none = { status, taken: 0, owed: 0, returned: 0 };
  if (change === "opened") return status === null ? { ...none, ...(await takeForDispute(tx, purchase, disputeId, "open")), status: "open" } : none;
  if (change === "lost") {
    if (status === null) return { ...none, ...(await takeForDispute(tx, purchase, disputeId, "lost")), status: "lost" };
    if (status !== "open") return none;
    await tx.purchase.update({ where: { checkoutSessionId: purchase.checkoutSessionId }, data: { disputeStatus: "lost" } });
    return { ...none, status: "lost" };
  }
  if (status === null) {
    // Won before its opening was seen: nothing was taken, and the late opening finds it closed.
    await tx.purchase.update({ where: { checkoutSessionId: purchase.checkoutSessionId }, data: { disputeId, disputeStatus: "won" } });
    return { ...none, status: "won" };
  }
  if (status !== "open") return none;
  return { ...none, status: "won", returned: await giveBackForDispute(tx, purchase, disputeId) };
}

/** Takes what refunds have not taken of the pack's credits. */
async function takeForDispute(tx: Transaction, purchase: Purchase, disputeId: string, status: "open" | "lost"): Promise<{ taken: number; owed: number }> {
  const due = Math.max(0, purchase.credits - purchase.creditsClawedBack - purchase.creditsOwed);
  const { clawedBack, owed } = await takeBackCredits(tx, purchase, due);
  await appendEntry(tx, {
    ownerId: purchase.ownerId,
    kind: "DISPUTE",
    amount: -clawedBack,
    idempotencyKey: ledgerKey.dispute(disputeId),
    checkoutSessionId: purchase.checkoutSessionId,
    note: owedNote(owed) ?? undefined,
  });
  await tx.purchase.update({
    where: { checkoutSessionId: purchase.checkoutSessionId },
    data: {
      disputeId,
      disputeStatus: status,
      disputeClawedBack: clawedBack,
      disputeOwed: owed,
      creditsClawedBack: { increment: clawedBack },
      creditsOwed: { increment: owed },
    },
  });
  return { taken: clawedBack, owed };
}

/**
 * Gives back what the dispute took from the balance and what has been
 * collected of what it left owed; forgives the rest of that. Collections are
 * counted against a purchase's owed credits as a whole, so what is still owed
 * on it is taken to be the dispute's first (the customer's side of any doubt).
 */
async function giveBackForDispute(tx: Transaction, purchase: Purchase, disputeId: string): Promise<number> {
  const outstanding = purchase.creditsOwed - purchase.creditsCollected;
  const forgiven = Math.min(purchase.disputeOwed, Math.max(0, outstanding));
  const collected = purchase.disputeOwed - forgiven;
  const returned = purchase.disputeClawedBack + collected;
  await tx.purchase.update({
    where: { checkoutSessionId: purchase.checkoutSessionId },
    data: {
      disputeStatus: "won",
      creditsClawedBack: { decrement: purchase.disputeClawedBack },
      creditsOwed: { decrement: purchase.disputeOwed },
      creditsCollected: { decrement: collected },
    },
  });
  const key = ledgerKey.disputeWon(disputeId);
  await appendEntry(tx, { ownerId: purchase.ownerId, kind: "DISPUTE", amount: returned, idempotencyKey: key, checkoutSessionId: purchase.checkoutSessionId, note: "dispute won" });
  // Other purchases' debts (a refund's) are paid from it like from any credits that come in.
  await collectOwedIn(tx, { ownerId: purchase.ownerId, inflowKey: key, amount: returned, source: "a won dispute" });
  return returned;
}
