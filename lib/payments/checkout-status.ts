// Where a buyer's checkout stands, for the success page: credited (the
// webhook landed), paid and waiting for the webhook, a delayed payment still
// clearing, failed, or not paid at all. Only the owner who started it is told.
// Asking Stripe counts against the client address's limit (a page anyone can
// load with any session id); what the ledger already knows costs nothing.
import "server-only";
import type Stripe from "stripe";
import { env } from "@/lib/env";
import { findCreditPack } from "@/lib/credits/prices";
import { hitRateLimit } from "@/lib/rate-limit";
import { findPurchase } from "@/lib/credits/purchase-lookup";
import { stripeClient } from "./stripe-client";

export type CheckoutStatus =
  | { state: "credited"; credits: number; packName: string }
  | { state: "processing" | "awaiting_payment"; credits: number; packName: string }
  | { state: "failed" | "open" | "expired"; packName: string; checkoutUrl: string | null }
  | { state: "not_found" | "unavailable" }
  | { state: "rate_limited"; retryAfterSeconds: number };

/** A Checkout Session id as Stripe makes them: anything else is not looked up. */
export const SESSION_ID = /^cs_(test|live)_\w{1,250}$/;

/**
 * `owners`: the viewer's id, and the guest of their cookie (who may have bought before signing in);
 * `visitor`: the client address's key (lib/rate-limit visitorKey).
 */
export async function getCheckoutStatus({ sessionId, owners, visitor }: { sessionId: string; owners: string[]; visitor: string }): Promise<CheckoutStatus> {
  if (!SESSION_ID.test(sessionId)) return { state: "not_found" };
  const purchase = (await Promise.all(owners.map((ownerId) => findPurchase({ checkoutSessionId: sessionId, ownerId })))).find(Boolean);
  const stripe = stripeClient();
  if (purchase) return { state: "credited", credits: purchase.credits, packName: findCreditPack(purchase.packId)?.name ?? purchase.packId };
  if (!stripe) return { state: "unavailable" };
  const limit = await hitRateLimit({ key: `checkout-status:${visitor}`, limit: env.CHECKOUT_STATUS_RATE_LIMIT, windowSeconds: env.CHECKOUT_RATE_WINDOW_SECONDS });
  if (!limit.allowed) return { state: "rate_limited", retryAfterSeconds: limit.retryAfterSeconds };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ["payment_intent"] });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return { state: "not_found" };
    console.error(`[framehook] could not read Stripe checkout ${sessionId}:`, error instanceof Error ? error.message : error);
    return { state: "unavailable" };
  }
  // Another owner's session reads as an unknown one.
  const startedBy = [session.client_reference_id, session.metadata?.ownerId];
  if (!owners.some((ownerId) => startedBy.includes(ownerId))) return { state: "not_found" };
  const pack = findCreditPack(session.metadata?.packId ?? "");
  const packName = pack?.name ?? "Credits";
  const credits = pack?.credits ?? 0;
  if (session.status === "open") return { state: "open", packName, checkoutUrl: session.url };
  if (session.status === "expired") return { state: "expired", packName, checkoutUrl: null };
  if (session.payment_status === "paid") return { state: "processing", credits, packName };
  const intent = typeof session.payment_intent === "object" ? session.payment_intent : null;
  if (intent && (intent.status === "requires_payment_method" || intent.status === "canceled")) return { state: "failed", packName, checkoutUrl: null };
  return { state: "awaiting_payment", credits, packName };
}
