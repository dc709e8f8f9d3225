// Stripe's webhook, from raw body to ledger: verify the signature (Stripe's
// scheme and 300 s tolerance), map the event, and call the ledger, which
// credits each Checkout Session once whatever the retries, order or
// concurrency (its key is the session id, never the event id: Stripe sends
// one event to every endpoint, and a session emits several events).
//   checkout.session.completed, paid        → credit
//   checkout.session.async_payment_succeeded → credit (a delayed method cleared)
//   charge.refunded                         → claw back the refunded share
//   charge.dispute.created                  → take the pack's credits back, like a full refund
//   charge.dispute.closed, won (or an inquiry closed) → give back what the dispute took, once
//   charge.dispute.closed, lost             → keep them taken
//   anything else                           → 2xx, ignored
// What a refund or a dispute cannot take (spent or held credits) is owed and
// taken from the owner's next credits (lib/credits/owed.ts). Every dispute
// event is logged for the operator.
// With credits off (CREDITS_ENABLED=false) nothing new is sold, but a payment
// that still arrives (a checkout opened before, a refund) is money that moved:
// it is recorded as with credits on, and a purchase is logged for the operator.
import "server-only";
import Stripe from "stripe";
import { z } from "zod";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { creditsEnabled } from "@/lib/credits/pricing";
import { findCreditPack } from "@/lib/credits/prices";
import { applyDispute, type DisputeChange } from "@/lib/credits/disputes";
import { creditPaidCheckout, PaymentRefusedError, refundCheckoutPayment } from "@/lib/credits/purchases";
import { stripeClient } from "./stripe-client";
import { traced } from "@/lib/traces/tracing";

/** Stripe's default: a signature older (or newer) than this is refused, so a captured delivery cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type StripeEventOutcome =
  | "credited"
  | "already_credited"
  | "awaiting_payment"
  | "refused"
  | "refund_applied"
  | "refund_pending"
  | "dispute_applied"
  | "dispute_unknown"
  | "ignored";

const metadataSchema = z.object({
  ownerId: z.string().min(1).max(200),
  packId: z.string().min(1).max(100),
  credits: z.string().regex(/^\d{1,9}$/).transform(Number),
});

export function receiveStripeEvent({ body, signature }: { body: string; signature: string | null }): Promise<{ outcome: StripeEventOutcome; type: string }> {
  return traced("stripe.webhook", {}, async (span) => {
    const event = verifyEvent(body, signature);
    span.set({ "framehook.stripe.event.id": event.id, "framehook.stripe.event.type": event.type });
    const outcome = await applyEvent(event);
    span.set({ "framehook.stripe.outcome": outcome });
    return { outcome, type: event.type };
  });
}

function verifyEvent(body: string, signature: string | null): Stripe.Event {
  const stripe = stripeClient();
  const settings = env.payments;
  if (!stripe || settings.mode === "off" || !settings.webhookSecret) throw new AppError("not_found", "Payments are not enabled on this server.");
  try {
    return stripe.webhooks.constructEvent(body, signature ?? "", settings.webhookSecret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (error) {
    // The library's message names the failure (no header, stale timestamp, no match), never the secret or the payload.
    const reason = error instanceof Stripe.errors.StripeSignatureVerificationError ? error.message.split("\n")[0] : "unreadable event";
    console.warn(`[framehook] Stripe webhook refused: ${reason}`);
    throw new AppError("bad_request", "The Stripe signature did not verify.");
  }
}

async function applyEvent(event: Stripe.Event): Promise<StripeEventOutcome> {
  switch (event.type) {
    case "checkout.session.completed":
      // A delayed method (a bank debit) completes the session unpaid; async_payment_succeeded follows when it clears.
      if (event.data.object.payment_status !== "paid") return "awaiting_payment";
      return creditSession(event.data.object, event.id);
    case "checkout.session.async_payment_succeeded":
      return creditSession(event.data.object, event.id);
    case "charge.refunded":
      return refundCharge(event.data.object, event.id);
    case "charge.dispute.created":
      return changeDispute(event.data.object, event.id, "opened");
    case "charge.dispute.closed": {
      const status = event.data.object.status;
      if (status === "won" || status === "warning_closed") return changeDispute(event.data.object, event.id, "won");
      if (status === "lost") return changeDispute(event.data.object, event.id, "lost");
      console.warn(`[framehook] Stripe dispute ${event.data.object.id} (event ${event.id}) closed as "${status}": nothing changed`);
      return "ignored";
    }
    default:
      return "ignored";
  }
}

async function creditSession(session: Stripe.Checkout.Session, eventId: string): Promise<StripeEventOutcome> {
  const refuse = (why: string): StripeEventOutcome => {
    console.error(`[framehook] Stripe checkout ${session.id} (event ${eventId}) paid but NOT credited: ${why}. Check it in the Stripe dashboard; refund it or credit the owner by hand.`);
    return "refused";
  };
  if (session.mode !== "payment") return refuse(`mode is ${session.mode}, not payment`);
  const metadata = metadataSchema.safeParse(session.metadata ?? {});
  if (!metadata.success) return refuse("its metadata does not name an owner, a pack and its credits");
  const { ownerId, packId, credits } = metadata.data;
  if (session.client_reference_id && session.client_reference_id !== ownerId) return refuse("client_reference_id and metadata.ownerId differ");
  const pack = findCreditPack(packId);
  if (!pack) return refuse(`no credit pack "${packId}"`);
  // The line items were priced from the pack; a subtotal or currency that differs is not this pack (an edited price, a forged session).
  if (session.currency?.toLowerCase() !== pack.currency) return refuse(`currency ${session.currency} is not the pack's ${pack.currency}`);
  if (session.amount_subtotal !== pack.unitAmount) return refuse(`subtotal ${session.amount_subtotal} is not the pack's price ${pack.unitAmount}`);
  if (session.amount_total === null) return refuse("it has no amount_total");
  try {
    const { credited } = await creditPaidCheckout({
      checkoutSessionId: session.id,
      ownerId,
      packId,
      credits,
      amountTotal: session.amount_total,
      currency: session.currency,
      paymentIntentId: idOf(session.payment_intent),
    });
    if (credited && !creditsEnabled()) {
      console.warn(`[framehook] Stripe checkout ${session.id} credited ${credits} credits to ${ownerId} while credits are off (CREDITS_ENABLED=false): they can spend them only once credits are on again; refund it in the Stripe dashboard if they will not be.`);
    }
    return credited ? "credited" : "already_credited";
  } catch (error) {
    if (error instanceof PaymentRefusedError) return refuse(error.message);
    throw error;
  }
}

async function refundCharge(charge: Stripe.Charge, eventId: string): Promise<StripeEventOutcome> {
  const paymentIntentId = idOf(charge.payment_intent);
  if (!paymentIntentId) return "ignored";
  try {
    // Before its session was credited (events arrive in any order), the ledger keeps it and applies it then.
    const { known, owed } = await refundCheckoutPayment({ paymentIntentId, amountRefunded: charge.amount_refunded });
    if (!known) return "refund_pending";
    if (owed > 0) console.warn(`[framehook] Stripe refund of ${paymentIntentId} (event ${eventId}): ${owed} credits were already spent and are recorded as owed`);
    return "refund_applied";
  } catch (error) {
    if (!(error instanceof PaymentRefusedError)) throw error;
    console.error(`[framehook] Stripe refund of ${paymentIntentId} (event ${eventId}) not applied: ${error.message}`);
    return "refused";
  }
}

async function changeDispute(dispute: Stripe.Dispute, eventId: string, change: DisputeChange): Promise<StripeEventOutcome> {
  const paymentIntentId = idOf(dispute.payment_intent);
  const about = `Stripe dispute ${dispute.id} of ${paymentIntentId ?? idOf(dispute.charge)} (event ${eventId}, ${change}, ${dispute.amount} ${dispute.currency}, reason ${dispute.reason})`;
  if (!paymentIntentId) {
    console.error(`[framehook] ${about}: no payment intent, so no purchase to apply it to. Check it in the Stripe dashboard.`);
    return "dispute_unknown";
  }
  const result = await applyDispute({ paymentIntentId, disputeId: dispute.id, change });
  if (!result.known) {
    console.error(`[framehook] ${about}: no purchase was paid by it; nothing taken. Check it in the Stripe dashboard.`);
    return "dispute_unknown";
  }
  if (result.otherDispute) {
    console.error(`[framehook] ${about}: the purchase is already under dispute ${result.otherDispute}; nothing changed.`);
    return "dispute_unknown";
  }
  // The operator hears of every dispute event, applied or repeated.
  console.warn(
    `[framehook] ${about}: owner ${result.ownerId}, dispute ${result.status ?? "not open"}; took ${result.taken} credits, ${result.owed} owed, gave back ${result.returned}`,
  );
  return "dispute_applied";
}

const idOf = (value: string | { id: string } | null | undefined): string | null => (typeof value === "string" ? value : (value?.id ?? null));
