// A purchase's receipt: Stripe hosts it (the charge's `receipt_url`), so the
// kit stores no copy and asks for the address when the buyer opens it. Only
// the owner whose purchase it is gets an address; anyone else reads "not found".
import "server-only";
import type Stripe from "stripe";
import { findPurchase } from "@/lib/credits/purchase-lookup";
import { stripeClient } from "./stripe-client";

export type ReceiptLookup = { state: "found"; url: string } | { state: "not_found" } | { state: "unavailable" };

export async function findReceipt({ checkoutSessionId, ownerId }: { checkoutSessionId: string; ownerId: string }): Promise<ReceiptLookup> {
  if (!(await findPurchase({ checkoutSessionId, ownerId }))) return { state: "not_found" };
  const stripe = stripeClient();
  if (!stripe) return { state: "unavailable" };
  try {
    const session = await stripe.checkout.sessions.retrieve(checkoutSessionId, { expand: ["payment_intent.latest_charge"] });
    const charge = (session.payment_intent as Stripe.PaymentIntent | null)?.latest_charge as Stripe.Charge | string | null | undefined;
    const url = typeof charge === "object" ? charge?.receipt_url : null;
    return url ? { state: "found", url } : { state: "unavailable" };
  } catch (error) {
    console.error(`[framehook] could not read the receipt of Stripe checkout ${checkoutSessionId}:`, error instanceof Error ? error.message : error);
    return { state: "unavailable" };
  }
}
