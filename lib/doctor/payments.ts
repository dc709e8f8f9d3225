// Can the app take payments? With STRIPE_SECRET_KEY: Stripe accepts the key
// (one cheap authenticated read), the webhook secret has its shape, and an
// endpoint is registered for the events the kit uses. Without it: the local
// payments simulator answers (development and tests), or buying is off: a
// warning, unless credits are off altogether (CREDITS_ENABLED=false).
import type Stripe from "stripe";
import type { PaymentsSettings } from "@/lib/payments/settings";
import { fail, ok, warn, type CheckResult } from "./check";

const NAME = "Payments";
const WEBHOOK_NAME = "Payment webhooks";
/** The events lib/payments/receive-stripe-event.ts acts on. */
export const STRIPE_EVENTS_USED = ["checkout.session.completed", "checkout.session.async_payment_succeeded", "charge.refunded", "charge.dispute.created", "charge.dispute.closed"] as const;

export async function checkPayments({
  settings,
  publicBaseUrl,
  production,
  stripe,
  creditsEnabled = true,
}: {
  settings: PaymentsSettings;
  publicBaseUrl: string;
  production: boolean;
  stripe: Stripe | null;
  creditsEnabled?: boolean;
}): Promise<CheckResult[]> {
  if ((settings.mode === "off" || !stripe) && !creditsEnabled) return [ok(NAME, "credits are off (CREDITS_ENABLED=false): submissions hold none and nothing is sold")];
  if (settings.mode === "off" || !stripe) {
    return [warn(NAME, `buying credits is off: ${settings.mode === "off" ? settings.reason : "no Stripe client"}`, "set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (docs/payments.md)")];
  }
  if (settings.mode === "simulator") {
    const where = new URL(settings.simulatorUrl).origin;
    try {
      await stripe.checkout.sessions.list({ limit: 1 });
      return [ok(NAME, `no STRIPE_SECRET_KEY: the local payments simulator at ${where} takes the payments (no money moves)`)];
    } catch (error) {
      return [
        warn(
          NAME,
          `no STRIPE_SECRET_KEY, and the local payments simulator at ${where} does not answer: ${describe(error)}`,
          "`npm run dev` starts it with the app (or `npm run simulator:payments` alone); set STRIPE_SECRET_KEY to use Stripe",
        ),
      ];
    }
  }
  const results: CheckResult[] = [];
  const mode = settings.livemode ? "live mode" : "test mode";
  try {
    await stripe.checkout.sessions.list({ limit: 1 });
    if (settings.livemode && !production) {
      results.push(warn(NAME, `Stripe accepts STRIPE_SECRET_KEY (${mode}) outside production: real cards will be charged`, "use a test key (sk_test_…) in development"));
    } else {
      results.push(ok(NAME, `Stripe accepts STRIPE_SECRET_KEY (${mode})`));
    }
  } catch (error) {
    const type = (error as { type?: string }).type;
    const fix =
      type === "StripeAuthenticationError"
        ? "copy the secret key again from the Stripe dashboard (Developers → API keys) into STRIPE_SECRET_KEY, then restart"
        : type === "StripePermissionError"
          ? "give the restricted key write access to Checkout Sessions"
          : "check this machine's network to api.stripe.com";
    results.push(fail(NAME, `Stripe refused or could not be reached with STRIPE_SECRET_KEY: ${describe(error)}`, fix));
    return results;
  }
  if (!settings.webhookSecret) {
    results.push(fail(WEBHOOK_NAME, "STRIPE_WEBHOOK_SECRET is not set: every payment event will be refused (400) and no purchase credited", "set it to the endpoint's signing secret (whsec_…)"));
    return results;
  }
  const url = `${publicBaseUrl.replace(/\/$/, "")}/api/webhooks/stripe`;
  try {
    const endpoints = await stripe.webhookEndpoints.list({ limit: 100 });
    const endpoint = endpoints.data.find((e) => e.url === url && e.status === "enabled");
    if (!endpoint) {
      results.push(
        warn(WEBHOOK_NAME, `STRIPE_WEBHOOK_SECRET is set (whsec_…), but no enabled endpoint is registered for ${url}`, "add it in the dashboard (Developers → Webhooks), or forward events with `stripe listen --forward-to` while developing"),
      );
    } else {
      const missing = endpoint.enabled_events.includes("*") ? [] : STRIPE_EVENTS_USED.filter((e) => !endpoint.enabled_events.includes(e));
      results.push(
        missing.length === 0
          ? ok(WEBHOOK_NAME, `endpoint ${url} receives ${STRIPE_EVENTS_USED.join(", ")}; STRIPE_WEBHOOK_SECRET is set (whsec_…)`)
          : fail(WEBHOOK_NAME, `endpoint ${url} does not receive ${missing.join(", ")}: purchases or refunds will be missed`, "enable those events on the endpoint in the dashboard"),
      );
    }
  } catch (error) {
    results.push(warn(WEBHOOK_NAME, `STRIPE_WEBHOOK_SECRET is set (whsec_…); the endpoints could not be listed: ${describe(error)}`, "a restricted key needs read access to webhook endpoints for this check"));
  }
  return results;
}

const describe = (error: unknown) => (error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : String(error));
