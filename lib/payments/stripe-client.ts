// The kit's Stripe client: the `stripe` package, pointed at Stripe with a
// real key, or at the local payments simulator without one (same calls, same
// objects). Made on first use, so a build without keys never needs one.
import "server-only";
import Stripe from "stripe";
import { env } from "@/lib/env";
import type { PaymentsSettings } from "./settings";

const globalForStripe = globalThis as unknown as { framehookStripe?: Stripe };

/** The client, or null when buying is off (production without STRIPE_SECRET_KEY). */
export function stripeClient(): Stripe | null {
  const settings = env.payments;
  if (settings.mode === "off") return null;
  return (globalForStripe.framehookStripe ??= createStripeClient(settings));
}

export function createStripeClient(settings: Exclude<PaymentsSettings, { mode: "off" }>): Stripe {
  // Network retries reuse one idempotency key per call, so a retried create makes one session.
  const common = { maxNetworkRetries: 2, timeout: 20_000, appInfo: { name: "Framehook" } } as const;
  if (settings.mode === "stripe") return new Stripe(settings.secretKey, common);
  const url = new URL(settings.simulatorUrl);
  const protocol = url.protocol === "https:" ? "https" : "http";
  return new Stripe(settings.secretKey, {
    ...common,
    timeout: 10_000,
    host: url.hostname,
    port: url.port || (protocol === "https" ? 443 : 80),
    protocol,
    telemetry: false,
  });
}

/** Whether buying goes to Stripe, to the local simulator, or is off; pages say which. */
export const paymentsMode = (): PaymentsSettings["mode"] => env.payments.mode;
