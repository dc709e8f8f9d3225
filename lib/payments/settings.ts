// Which payments the app takes, from the environment (lib/env.ts validates
// these fields with every other variable and calls resolvePaymentsSettings):
// real Stripe when STRIPE_SECRET_KEY is set; otherwise, outside production or
// when PAYMENTS_SIMULATOR_URL names one, the local payments simulator; in
// production with neither, buying is off and the credits page says so.
import { z } from "zod";
import { isLoopback } from "../http/loopback";

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

/** The simulator takes any test-mode key; this one names itself in its logs. */
export const SIMULATOR_SECRET_KEY = "sk_test_framehook_payments_simulator";
/**
 * Public (it is in this file), so it signs only the simulator's events, never
 * in production, and only for an app on loopback: a development app reached
 * through a tunnel would otherwise accept anyone's forged purchase.
 */
export const DEV_WEBHOOK_SECRET = "whsec_framehook_dev_only_not_a_secret";
export const LOCAL_PAYMENTS_SIMULATOR = "http://127.0.0.1:4020";

export const paymentsFields = {
  // A secret (sk_…) or restricted (rk_…) key, test or live: switches buying to Stripe.
  STRIPE_SECRET_KEY: optional(z.string().regex(/^(sk|rk)_(test|live)_\w+$/, "must be a Stripe secret key (sk_test_…, sk_live_…) or restricted key (rk_…)")),
  // The webhook endpoint's signing secret, from the dashboard or `stripe listen`.
  STRIPE_WEBHOOK_SECRET: optional(z.string().regex(/^whsec_\S+$/, "must be the webhook endpoint's signing secret (whsec_…)")),
  // The local payments simulator (simulator/payments) the Stripe client talks to without a key.
  PAYMENTS_SIMULATOR_URL: optional(z.url({ protocol: /^https?$/ })),
};

type PaymentsFields = z.infer<z.ZodObject<typeof paymentsFields>>;

export type PaymentsSettings =
  | { mode: "stripe"; secretKey: string; webhookSecret: string | undefined; livemode: boolean }
  | { mode: "simulator"; secretKey: string; webhookSecret: string | undefined; simulatorUrl: string }
  | { mode: "off"; reason: string };

/**
 * The payments the app takes. `issue` reports what the environment must fix:
 * a key without its webhook secret, or the simulator in production without
 * one (the development secret is public).
 */
export function resolvePaymentsSettings(
  raw: PaymentsFields & { NODE_ENV: string; PUBLIC_BASE_URL: string },
  { serving, issue }: { serving: boolean; issue: (name: string, message: string) => void },
): PaymentsSettings {
  const production = raw.NODE_ENV === "production";
  if (raw.STRIPE_SECRET_KEY) {
    if (serving && !raw.STRIPE_WEBHOOK_SECRET) issue("STRIPE_WEBHOOK_SECRET", "is required with STRIPE_SECRET_KEY: the webhook endpoint's signing secret (whsec_…), from the dashboard or `stripe listen`");
    return { mode: "stripe", secretKey: raw.STRIPE_SECRET_KEY, webhookSecret: raw.STRIPE_WEBHOOK_SECRET, livemode: raw.STRIPE_SECRET_KEY.includes("_live_") };
  }
  if (production && !raw.PAYMENTS_SIMULATOR_URL) {
    return { mode: "off", reason: "STRIPE_SECRET_KEY is not set" };
  }
  if (production && serving && !raw.STRIPE_WEBHOOK_SECRET) {
    issue("STRIPE_WEBHOOK_SECRET", "is required in production (NODE_ENV=production) with PAYMENTS_SIMULATOR_URL: the secret the simulator signs with");
  }
  return {
    mode: "simulator",
    secretKey: SIMULATOR_SECRET_KEY,
    webhookSecret: raw.STRIPE_WEBHOOK_SECRET ?? (production || !isLoopback(raw.PUBLIC_BASE_URL) ? undefined : DEV_WEBHOOK_SECRET),
    simulatorUrl: raw.PAYMENTS_SIMULATOR_URL ?? LOCAL_PAYMENTS_SIMULATOR,
  };
}
