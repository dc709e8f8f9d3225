// Stripe calls anyone can trigger are counted per client address in the
// database limiter: Buy (a Checkout Session created) and the success page
// (a session retrieved while the ledger has not credited it). Real parts: the
// app under `next start` behind one trusted proxy hop (the client is the
// X-Forwarded-For entry this test writes, as a proxy would), the payments
// simulator, the /credits form posted as a browser without JavaScript posts it.
import { afterAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { startApp, waitFor } from "../support/app";
import { PaymentsControl, startPaymentsSimulator } from "../support/payments-simulator";

const WEBHOOK_SECRET = "whsec_fh_test_Lm7Qz2Xc9Vb4Nd6Rt";
const appPort = await freePort();
const payments = await startPaymentsSimulator({
  PAYMENTS_SIMULATOR_WEBHOOK_URL: `http://127.0.0.1:${appPort}/api/webhooks/stripe`,
  PAYMENTS_SIMULATOR_WEBHOOK_SECRET: WEBHOOK_SECRET,
  PAYMENTS_SIMULATOR_BACKOFF_MS: "100",
});
const control = new PaymentsControl(payments.url);
const app = await startApp({
  port: appPort,
  env: {
    PAYMENTS_SIMULATOR_URL: payments.url,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TRUSTED_PROXY_HOPS: "1",
    CHECKOUT_RATE_LIMIT: "2",
    CHECKOUT_STATUS_RATE_LIMIT: "3",
    CHECKOUT_RATE_WINDOW_SECONDS: "3600",
  },
}).catch((error) => {
  payments.child.kill("SIGKILL");
  throw error;
});

const { startCheckout } = await import("@/lib/payments/checkout");

afterAll(async () => {
  payments.child.kill("SIGTERM");
  await app.close();
});

type Visitor = ReturnType<typeof app.visitor>;
const sessionsAtStripe = async () => ((await (await fetch(`${payments.url}/__control/sessions`)).json()) as unknown[]).length;

/** Presses "Buy Starter" as a browser without JavaScript does: the form's own fields, posted multipart to /credits. */
async function buyStarter(visitor: Visitor, client: string) {
  const headers = { "X-Forwarded-For": client };
  const page = await (await visitor("/credits", { headers })).text();
  const form = page.match(/<form[^>]*>(?:(?!<\/form>)[\s\S])*?name="packId" value="starter"[\s\S]*?<\/form>/)?.[0];
  if (!form) throw new Error("no form for the starter pack on /credits");
  const body = new FormData();
  for (const input of form.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?\/?>/g)) {
    body.append(input[1]!, (input[2] ?? "").replaceAll("&quot;", '"').replaceAll("&amp;", "&"));
  }
  const response = await visitor("/credits", { method: "POST", body, headers, redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), html: response.status === 200 ? await response.text() : "" };
}

describe("Buy (a Checkout Session created at Stripe)", () => {
  test("counted per client address: the third from one address is refused with a message and no session; another address still buys", async () => {
    const before = await sessionsAtStripe();
    const visitor = app.visitor();
    for (let i = 0; i < 2; i++) {
      const bought = await buyStarter(visitor, "198.51.100.10");
      expect(bought.status).toBe(303);
      expect(bought.location).toContain(`${payments.url}/c/pay/cs_test_`);
    }
    // A new cookie changes nothing: the address is counted.
    const refused = await buyStarter(app.visitor(), "198.51.100.10");
    expect(refused.status).toBe(200);
    // The window is the hour: what is left of it.
    expect(refused.html).toMatch(/Too many checkouts were started from your network\. Try again in \d+ (minutes?|seconds?); a checkout you already opened can still be paid\./);
    expect(await sessionsAtStripe()).toBe(before + 2);

    const elsewhere = await buyStarter(app.visitor(), "198.51.100.11");
    expect(elsewhere.status).toBe(303);
    expect(await sessionsAtStripe()).toBe(before + 3);
  });
});

describe("/credits/success?session_id=… (a session retrieved from Stripe)", () => {
  test("counted per client address while the ledger has not credited it; a credited one costs no Stripe call", async () => {
    const visitor = app.visitor();
    const client = { "X-Forwarded-For": "198.51.100.20" };
    const ownerId = await visitor.ownerId();
    const started = await startCheckout({ viewer: { id: ownerId }, packId: "starter", visitor: "test-client" });
    if (started.status !== "redirect") throw new Error(started.message);
    const sessionId = new URL(started.url).pathname.split("/").pop()!;
    const success = async () => (await visitor(`/credits/success?session_id=${sessionId}`, { headers: client })).text();

    for (let i = 0; i < 3; i++) expect(await success()).toContain("This checkout has not been paid.");
    const limited = await success();
    expect(limited).toContain("Too many payment checks from your network.");
    expect(limited.replaceAll("<!-- -->", "")).toMatch(/This page checks again in \d+ (minutes?|seconds?)\./);
    // Another address is counted apart.
    expect(await (await visitor(`/credits/success?session_id=${sessionId}`, { headers: { "X-Forwarded-For": "198.51.100.21" } })).text()).toContain("This checkout has not been paid.");

    // Once the webhook has credited it, the page reads the ledger only: the limited address sees the credit.
    await control.act(sessionId, "pay");
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    expect(await success()).toContain("Payment received.");
  });
});
