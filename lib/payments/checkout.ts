// Buying a credit pack: a Stripe Checkout Session in payment mode, priced
// from the pack (never from the browser), tied to the owner by
// client_reference_id and metadata, which the webhook reads back to credit
// it. The browser is then sent to the session's hosted page. Each session
// created counts against the client address's checkout limit first: Buy is a
// Stripe API call anyone can trigger.
import "server-only";
import type Stripe from "stripe";
import { env } from "@/lib/env";
import { creditsEnabled } from "@/lib/credits/pricing";
import { findCreditPack, type CreditPack } from "@/lib/credits/prices";
import { hitRateLimit } from "@/lib/rate-limit";
import { waitWords } from "./wait-words";
import type { Viewer } from "@/lib/viewer/get-viewer";
import { stripeClient } from "./stripe-client";

export type CheckoutStart = { status: "redirect"; url: string } | { status: "error"; message: string; retryAfterSeconds?: number };

/** What the webhook reads back from a session's metadata to credit it. */
export type CheckoutMetadata = { ownerId: string; packId: string; credits: string };

export const CHECKOUT_CANCELLED = "cancelled";

/** `visitor`: the client address's key (lib/rate-limit visitorKey), which the checkout limit counts. */
export async function startCheckout({ viewer, packId, visitor }: { viewer: Viewer; packId: string; visitor: string }): Promise<CheckoutStart> {
  if (!creditsEnabled()) return { status: "error", message: "Credits are off on this server: there is nothing to buy." };
  const pack = findCreditPack(packId);
  if (!pack) return { status: "error", message: "That pack is not on sale." };
  const stripe = stripeClient();
  if (!stripe) return { status: "error", message: "Buying credits is not available on this server." };
  const limit = await hitRateLimit({ key: `checkout:${visitor}`, limit: env.CHECKOUT_RATE_LIMIT, windowSeconds: env.CHECKOUT_RATE_WINDOW_SECONDS });
  if (!limit.allowed) {
    return {
      status: "error",
      message: `Too many checkouts were started from your network. Try again in ${waitWords(limit.retryAfterSeconds)}; a checkout you already opened can still be paid.`,
      retryAfterSeconds: limit.retryAfterSeconds,
    };
  }
  try {
    const session = await stripe.checkout.sessions.create(sessionParams(viewer, pack));
    if (!session.url) throw new Error(`Checkout Session ${session.id} has no url`);
    return { status: "redirect", url: session.url };
  } catch (error) {
    // Stripe's message may name the account's settings; the buyer is told only that it failed.
    console.error(`[framehook] could not start a Stripe checkout for pack ${pack.id}:`, error instanceof Error ? error.message : error);
    return { status: "error", message: "Checkout could not be started. Please try again in a moment." };
  }
}

function sessionParams(viewer: Viewer, pack: CreditPack): Stripe.Checkout.SessionCreateParams {
  const base = env.PUBLIC_BASE_URL.replace(/\/$/, "");
  const metadata: CheckoutMetadata = { ownerId: viewer.id, packId: pack.id, credits: String(pack.credits) };
  return {
    mode: "payment",
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: pack.currency,
          unit_amount: pack.unitAmount,
          product_data: { name: `${pack.name} · ${pack.credits.toLocaleString("en-US")} credits` },
        },
      },
    ],
    client_reference_id: viewer.id,
    metadata,
    // Stripe fills in the session id; the success page reads it.
    success_url: `${base}/credits/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${base}/credits?checkout=${CHECKOUT_CANCELLED}`,
  };
}
