// The payments simulator's public webhook secret signs only what an app on
// loopback accepts: a development app reached through a tunnel needs its own.
import { describe, expect, test } from "vitest";
import { DEV_WEBHOOK_SECRET, resolvePaymentsSettings } from "@/lib/payments/settings";

const resolve = (raw: Record<string, string | undefined>) =>
  resolvePaymentsSettings({ NODE_ENV: "development", PUBLIC_BASE_URL: "http://localhost:3000", ...raw }, { serving: true, issue: () => undefined });

describe("the development webhook secret", () => {
  test.each(["http://localhost:3000", "http://127.0.0.1:3100", "http://[::1]:3000"])("is accepted for an app at %s", (url) => {
    expect(resolve({ PUBLIC_BASE_URL: url })).toMatchObject({ mode: "simulator", webhookSecret: DEV_WEBHOOK_SECRET });
  });

  test.each(["https://abc123.ngrok.app", "https://dev.example.com"])("is not for an app reached at %s: webhooks need STRIPE_WEBHOOK_SECRET", (url) => {
    expect(resolve({ PUBLIC_BASE_URL: url })).toMatchObject({ mode: "simulator", webhookSecret: undefined });
    expect(resolve({ PUBLIC_BASE_URL: url, STRIPE_WEBHOOK_SECRET: "whsec_own" })).toMatchObject({ webhookSecret: "whsec_own" });
  });

  test("never in production", () => {
    expect(resolve({ NODE_ENV: "production", PAYMENTS_SIMULATOR_URL: "http://127.0.0.1:4020" })).toMatchObject({ webhookSecret: undefined });
  });
});
