// Credits bought with a payment: a paid Checkout Session credited once, and a
// refund's share clawed back. The payment webhook verifies and maps Stripe's
// events, then calls these; whatever the retries, the order or the concurrency
// of its deliveries, each session is credited once and each refunded amount
// taken back once. What a refund cannot take back (the credits were spent or
// are held) is recorded on the purchase as owed and taken from the owner's
// next credits (owed.ts). Disputes: disputes.ts.
import "server-only";
import { accountOwnerId, isDeletedAccount } from "@/lib/auth/session";
import { isUniqueViolation, retryTransaction } from "@/lib/database/errors";
import { prisma, type Transaction } from "@/lib/db";
import { publishCreditsChange } from "@/lib/events";
import type { Purchase } from "@/lib/generated/prisma/client";
import { appendEntry, ledgerKey, lockCredits, readCreditBalance } from "./ledger";
import { collectOwedIn, lockPurchases } from "./owed";
import { findCreditPack } from "./prices";

export type PaidCheckout = {
  checkoutSessionId: string;
  ownerId: string;
  packId: string;
  credits: number;
  /** What was paid, in the currency's minor units. */
  amountTotal: number;
  currency: string;
  paymentIntentId: string | null;
};

/**
 * A payment that must not be credited or applied as it stands: an unknown
 * pack, credits or an amount that do not match it, a figure that is not a
 * whole positive number. The webhook answers 2xx (a retry would not change
 * it) and logs it for the operator.
 */
export class PaymentRefusedError extends Error {
  constructor(
    readonly reason: "unknown_pack" | "pack_mismatch" | "amount_mismatch" | "currency_mismatch" | "invalid_figure",
    message: string,
  ) {
    super(message);
    this.name = "PaymentRefusedError";
  }
}

const BUSY_WAIT_MS = 10_000;
const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 10_000 };
const isWhole = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n);

/** Refuses what cannot be a paid pack: never credit NaN, a negative figure, or credits the price did not buy. */
function checkPaidCheckout(paid: PaidCheckout): void {
  if (!paid.checkoutSessionId || !paid.ownerId) throw new PaymentRefusedError("invalid_figure", "A paid checkout needs its session id and owner.");
  if (!isWhole(paid.credits) || paid.credits <= 0) throw new PaymentRefusedError("invalid_figure", `Credits must be a positive whole number, not ${paid.credits}.`);
  if (!isWhole(paid.amountTotal) || paid.amountTotal <= 0) throw new PaymentRefusedError("invalid_figure", `The amount paid must be a positive whole number of minor units, not ${paid.amountTotal}.`);
  const pack = findCreditPack(paid.packId);
  if (!pack) throw new PaymentRefusedError("unknown_pack", `No credit pack "${paid.packId}".`);
  if (paid.credits !== pack.credits) throw new PaymentRefusedError("pack_mismatch", `Pack "${pack.id}" is ${pack.credits} credits, not ${paid.credits}.`);
  if (paid.currency.toLowerCase() !== pack.currency) throw new PaymentRefusedError("currency_mismatch", `Pack "${pack.id}" is sold in ${pack.currency}, not ${paid.currency}.`);
  // Taxes may raise the total above the pack's price; nothing may lower it.
  if (paid.amountTotal < pack.unitAmount) {
    throw new PaymentRefusedError("amount_mismatch", `Pack "${pack.id}" costs ${pack.unitAmount} ${pack.currency}, but ${paid.amountTotal} was paid.`);
  }
}

/**
 * Credits a paid Checkout Session once: the first call writes the Purchase
 * and the "purchase:<id>" ledger row in one transaction; every later call
 * (retries, duplicates, the async_payment_succeeded after completed,
 * concurrent deliveries) changes nothing. A refund that arrived first is
 * applied right after. Paid for an account deleted before it landed, the
 * purchase is recorded and credits nobody (logged for the operator to refund).
 */
export async function creditPaidCheckout(paid: PaidCheckout): Promise<{ credited: boolean; balance: number }> {
  checkPaidCheckout(paid);
  let credited: boolean;
  try {
    credited = await retryTransaction(
      () =>
        prisma.$transaction(async (tx) => {
          // Concurrent deliveries of one session queue here; each then finds what the previous one wrote.
          await lockCredits(tx, paid.ownerId);
          if (await tx.purchase.findUnique({ where: { checkoutSessionId: paid.checkoutSessionId }, select: { ownerId: true } })) return false;
          // A guest who bought and has since signed in and kept their work (lib/viewer/claim-guest.ts) is that
          // account now: its credits go there, under its lock too (the claim's order: guest, then account).
          const claimedBy = (await tx.guestClaim.findUnique({ where: { guestId: paid.ownerId }, select: { userId: true } }))?.userId;
          const ownerId = claimedBy ? accountOwnerId(claimedBy) : paid.ownerId;
          if (claimedBy) await lockCredits(tx, ownerId);
          // Paid for an account deleted meanwhile (deletion holds its lock while it deletes): the payment is
          // recorded, as a deleted account's purchases stay, and credited to nobody; the log asks the operator to refund it.
          const deleted = await isDeletedAccount(tx, ownerId);
          await tx.purchase.create({
            data: {
              checkoutSessionId: paid.checkoutSessionId,
              ownerId,
              packId: paid.packId,
              credits: paid.credits,
              amountTotal: paid.amountTotal,
              currency: paid.currency.toLowerCase(),
              paymentIntentId: paid.paymentIntentId,
            },
          });
          if (deleted) {
            console.warn(`[framehook] checkout ${paid.checkoutSessionId} was paid for ${ownerId}, an account deleted before it landed: recorded, not credited; refund it (payment ${paid.paymentIntentId ?? "unknown"})`);
            return false;
          }
          await appendEntry(tx, {
            ownerId,
            kind: "PURCHASE",
            amount: paid.credits,
            idempotencyKey: ledgerKey.purchase(paid.checkoutSessionId),
            checkoutSessionId: paid.checkoutSessionId,
            note: `${paid.packId} pack`,
          });
          await collectOwedIn(tx, { ownerId, inflowKey: ledgerKey.purchase(paid.checkoutSessionId), amount: paid.credits, source: "a purchase" });
          return true;
        }, TRANSACTION_OPTIONS),
      { waitMs: BUSY_WAIT_MS },
    );
  } catch (error) {
    // The same session under another owner's lock (a forged or altered event that passed the signature): it was credited once already.
    if (!isUniqueViolation(error)) throw error;
    credited = false;
  }
  if (paid.paymentIntentId) {
    // Written after the purchase committed, read here after it: a refund that
    // missed the purchase had recorded itself before looking (refundCheckoutPayment).
    const early = await prisma.pendingRefund.findUnique({ where: { paymentIntentId: paid.paymentIntentId } });
    if (early) await refundCheckoutPayment({ paymentIntentId: early.paymentIntentId, amountRefunded: early.amountRefunded });
  }
  const owner = await prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: paid.checkoutSessionId }, select: { ownerId: true } });
  // Their open tabs (the success page, every header) hear it and re-read the balance.
  if (credited) await publishCreditsChange(owner.ownerId);
  return { credited, balance: await readCreditBalance(prisma, owner.ownerId) };
}

/**
 * A refund of a Checkout Session's payment: `amountRefunded` is Stripe's
 * CUMULATIVE refunded amount in minor units for that payment intent. Claws
 * back the refunded share of the credits (rounded up), at most what the owner
 * still has; the rest is recorded as owed. Idempotent per cumulative amount;
 * a smaller cumulative figure after a larger one changes nothing. An unknown
 * payment is remembered, and applied when its session is credited: { known: false }.
 * `clawedBack` and `owed` are what this call took back and recorded.
 */
export async function refundCheckoutPayment(refund: { paymentIntentId: string; amountRefunded: number }): Promise<{ known: boolean; clawedBack: number; owed: number }> {
  const { paymentIntentId, amountRefunded } = refund;
  if (!paymentIntentId) throw new PaymentRefusedError("invalid_figure", "A refund needs its payment intent.");
  if (!isWhole(amountRefunded) || amountRefunded < 0) {
    throw new PaymentRefusedError("invalid_figure", `A refunded amount must be a whole number of minor units, not ${amountRefunded}.`);
  }
  let purchase = await prisma.purchase.findUnique({ where: { paymentIntentId } });
  if (!purchase) {
    await rememberEarlyRefund(paymentIntentId, amountRefunded);
    // Look again after recording it: a purchase credited meanwhile either is
    // seen now, or its crediting (which reads the record after committing) applies it.
    purchase = await prisma.purchase.findUnique({ where: { paymentIntentId } });
    if (!purchase) return { known: false, clawedBack: 0, owed: 0 };
  }
  const applied = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        const current = await lockPurchaseOwner(tx, purchase);
        return { ...(await applyRefund(tx, current, amountRefunded)), ownerId: current.ownerId };
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
  if (applied.clawedBack > 0) await publishCreditsChange(applied.ownerId);
  return { known: true, clawedBack: applied.clawedBack, owed: applied.owed };
}

/**
 * Locks the purchase's owner's credits and purchases, then reads the purchase
 * again: another delivery may have applied a larger figure meanwhile, and a
 * guest → account claim may have moved the purchase since it was read. Its new
 * owner is locked too (after the old one: the claim's order), so what is taken
 * is sized and written under the locks of the owner it is written for. The
 * purchases are locked before any balance is read (lib/credits/owed.ts).
 */
export async function lockPurchaseOwner(tx: Transaction, purchase: Purchase): Promise<Purchase> {
  const locked = new Set<string>();
  let current = purchase;
  while (!locked.has(current.ownerId)) {
    await lockCredits(tx, current.ownerId);
    await lockPurchases(tx, current.ownerId);
    locked.add(current.ownerId);
    current = await tx.purchase.findUniqueOrThrow({ where: { checkoutSessionId: purchase.checkoutSessionId } });
  }
  return current;
}

/** Under the owner's locks: takes `due` credits, from the balance as far as it goes; the rest is owed, collected from the next credits. */
export async function takeBackCredits(tx: Transaction, purchase: Purchase, due: number): Promise<{ clawedBack: number; owed: number }> {
  const balance = await readCreditBalance(tx, purchase.ownerId);
  const clawedBack = Math.max(0, Math.min(due, balance));
  return { clawedBack, owed: Math.max(0, due) - clawedBack };
}

/** The history's words for credits owed. */
export const owedNote = (owed: number) => (owed > 0 ? `${owed.toLocaleString("en-US")} credit${owed === 1 ? "" : "s"} owed, taken from your next credits` : null);

/** Under the owner's lock: what the cumulative refund adds to what was already taken back or owed. */
async function applyRefund(tx: Transaction, purchase: Purchase, amountRefunded: number): Promise<{ clawedBack: number; owed: number }> {
  const cumulative = Math.min(amountRefunded, purchase.amountTotal);
  if (cumulative <= purchase.amountRefunded) return { clawedBack: 0, owed: 0 };
  // An open or lost dispute took every credit already: a refund then has nothing left to take.
  const due = Math.max(0, refundedCredits(purchase.credits, cumulative, purchase.amountTotal) - purchase.creditsClawedBack - purchase.creditsOwed);
  const { clawedBack, owed } = await takeBackCredits(tx, purchase, due);
  await appendEntry(tx, {
    ownerId: purchase.ownerId,
    kind: "REFUND",
    amount: -clawedBack,
    idempotencyKey: ledgerKey.refund(purchase.paymentIntentId!, cumulative),
    checkoutSessionId: purchase.checkoutSessionId,
    note: owedNote(owed) ?? undefined,
  });
  await tx.purchase.update({
    where: { checkoutSessionId: purchase.checkoutSessionId },
    data: {
      amountRefunded: cumulative,
      creditsClawedBack: { increment: clawedBack },
      creditsOwed: { increment: owed },
      status: cumulative >= purchase.amountTotal ? "REFUNDED" : "PARTIALLY_REFUNDED",
    },
  });
  return { clawedBack, owed };
}

/** The refunded share of a purchase's credits, rounded up: a full refund is every credit. */
export function refundedCredits(credits: number, refunded: number, total: number): number {
  return Number((BigInt(credits) * BigInt(refunded) + BigInt(total) - 1n) / BigInt(total));
}

/** Keeps the largest cumulative figure seen for a payment not credited yet. */
async function rememberEarlyRefund(paymentIntentId: string, amountRefunded: number): Promise<void> {
  try {
    await prisma.pendingRefund.create({ data: { paymentIntentId, amountRefunded } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await prisma.pendingRefund.updateMany({ where: { paymentIntentId, amountRefunded: { lt: amountRefunded } }, data: { amountRefunded } });
  }
}
