// Buying credits end to end on real parts: the app under `next start`, the
// payments simulator in a process of its own sending signed Stripe events to
// POST /api/webhooks/stripe, and the kit's own checkout code (startCheckout)
// creating each session through the `stripe` package. Every assertion reads
// what the ledger recorded (Purchase rows, CreditEntry rows, the balance)
// after the simulator reports the app's 2xx for the deliveries in question.
import Stripe from "stripe";
import { afterAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { startApp, waitFor } from "../support/app";
import { PaymentsControl, startPaymentsSimulator } from "../support/payments-simulator";
import { SseReader } from "../support/sse-reader";

const WEBHOOK_SECRET = "whsec_fh_test_Yt6Rb2Nq8Lm4Vc1Xk9Pz";
const APP_PASSWORD = "fh-test-gate-Hs5Lq";

const appPort = await freePort();
const payments = await startPaymentsSimulator({
  PAYMENTS_SIMULATOR_WEBHOOK_URL: `http://127.0.0.1:${appPort}/api/webhooks/stripe`,
  PAYMENTS_SIMULATOR_WEBHOOK_SECRET: WEBHOOK_SECRET,
  PAYMENTS_SIMULATOR_BACKOFF_MS: "100",
});
const control = new PaymentsControl(payments.url);
// The access gate is on: Stripe's deliveries carry no password and no visitor cookie, and must still land.
const app = await startApp({ port: appPort, env: { PAYMENTS_SIMULATOR_URL: payments.url, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, APP_PASSWORD } }).catch((error) => {
  payments.child.kill("SIGKILL");
  throw error;
});

const { prisma } = await import("@/lib/db");
const { startCheckout } = await import("@/lib/payments/checkout");
const { creditBalance } = await import("@/lib/credits/balance");

afterAll(async () => {
  payments.child.kill("SIGTERM");
  await app.close();
});

let owners = 0;
/** A fresh owner, and a Checkout Session for `packId` started by the kit's own checkout code. */
async function checkout(packId = "starter") {
  const ownerId = `guest-stripe-${process.pid}-${++owners}`;
  const started = await startCheckout({ viewer: { id: ownerId }, packId, visitor: "test-client" });
  if (started.status !== "redirect") throw new Error(`checkout did not start: ${started.message}`);
  const sessionId = new URL(started.url).pathname.split("/").pop()!;
  return { ownerId, sessionId, url: started.url };
}

const purchasesOf = (ownerId: string) => prisma.purchase.findMany({ where: { ownerId } });
const entriesOf = (ownerId: string) => prisma.creditEntry.findMany({ where: { ownerId }, orderBy: { id: "asc" }, select: { kind: true, amount: true, idempotencyKey: true } });
const stripe = new Stripe("sk_test_unused", { host: "127.0.0.1", port: Number(new URL(payments.url).port), protocol: "http" });

describe("a paid checkout", () => {
  test("is credited once: a Purchase, one PURCHASE row, the balance up by the pack", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    expect(await creditBalance(ownerId)).toBe(0);
    await control.act(sessionId, "pay");
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    const [purchase] = await purchasesOf(ownerId);
    expect(purchase).toMatchObject({ checkoutSessionId: sessionId, packId: "starter", credits: 100, amountTotal: 1000, currency: "usd", status: "PAID" });
    expect(purchase!.paymentIntentId).toMatch(/^pi_test_/);
    expect(await entriesOf(ownerId)).toEqual([{ kind: "PURCHASE", amount: 100, idempotencyKey: `purchase:${sessionId}` }]);
    expect(await creditBalance(ownerId)).toBe(100);
  });

  test("the same event 5 times at once, then 20 more at once: still one purchase", async () => {
    const { ownerId, sessionId } = await checkout("creator");
    await control.rule({ session: sessionId, type: "checkout.session.completed", duplicates: 4 });
    await control.act(sessionId, "pay");
    const [event] = (await waitFor(() => control.delivered(sessionId, "checkout.session.completed", 5)))!;
    expect(event!.attempts.filter((a) => a.status === 200)).toHaveLength(5);
    await control.resend(event!.id, 20);
    const storm = await waitFor(() => control.delivered(sessionId, "checkout.session.completed", 25));
    expect(storm[0]!.attempts.filter((a) => a.status === 200)).toHaveLength(25);
    expect(await purchasesOf(ownerId)).toHaveLength(1);
    expect(await entriesOf(ownerId)).toEqual([{ kind: "PURCHASE", amount: 500, idempotencyKey: `purchase:${sessionId}` }]);
    expect(await creditBalance(ownerId)).toBe(500);
  });
});

describe("the receipt", () => {
  // A visitor of the app (behind its access gate), whose purchase the history links to its receipt.
  const basic = { authorization: `Basic ${Buffer.from(`buyer:${APP_PASSWORD}`).toString("base64")}` };
  const asVisitor = (visitor: ReturnType<typeof app.visitor>) => (path: string) => visitor(path, { headers: basic, redirect: "manual" });

  test("the buyer is sent to the charge's receipt, which shows what was paid; anyone else, or an unknown id, gets 404", async () => {
    const buyer = app.visitor();
    const get = asVisitor(buyer);
    await get("/api/generations?limit=1");
    const ownerId = await buyer.ownerId();
    const started = await startCheckout({ viewer: { id: ownerId }, packId: "creator", visitor: "test-client" });
    if (started.status !== "redirect") throw new Error(started.message);
    const sessionId = new URL(started.url).pathname.split("/").pop()!;
    // Not credited yet: no purchase of theirs, so no receipt.
    expect((await get(`/credits/receipt/${sessionId}`)).status).toBe(404);
    await control.act(sessionId, "pay");
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));

    const answer = await get(`/credits/receipt/${sessionId}`);
    expect(answer.status).toBe(303);
    const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ["payment_intent.latest_charge"] });
    const charge = (session.payment_intent as Stripe.PaymentIntent).latest_charge as Stripe.Charge;
    expect(answer.headers.get("location")).toBe(charge.receipt_url);
    const receipt = await fetch(answer.headers.get("location")!);
    expect(receipt.status).toBe(200);
    const html = await receipt.text();
    expect(html).toContain("$45.00");
    expect(html).toContain("Creator");

    const stranger = asVisitor(app.visitor());
    expect((await stranger(`/credits/receipt/${sessionId}`)).status).toBe(404);
    expect((await get("/credits/receipt/cs_test_doesnotexist")).status).toBe(404);
    expect((await get("/credits/receipt/..%2F..%2Fetc")).status).toBe(404);
  });
});

describe("the buyer's open tabs", () => {
  const basic = { authorization: `Basic ${Buffer.from(`buyer:${APP_PASSWORD}`).toString("base64")}` };
  const streams: SseReader[] = [];
  afterAll(() => streams.forEach((stream) => stream.close()));
  const streamOf = async (visitor: ReturnType<typeof app.visitor>) => {
    await visitor("/api/generations?limit=1", { headers: basic });
    const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await visitor.cookieHeader(), ...basic });
    streams.push(stream);
    await waitFor(() => stream.messages.some((m) => m.event === "ready"));
    return stream;
  };
  const creditsHeard = (stream: SseReader) => stream.messages.filter((m) => m.event === "credits");

  test("hear that their credits changed when the webhook credits the purchase, and again on a refund's clawback; nobody else does", async () => {
    const buyer = app.visitor();
    const mine = await streamOf(buyer);
    const theirs = await streamOf(app.visitor());
    const started = await startCheckout({ viewer: { id: await buyer.ownerId() }, packId: "starter", visitor: "test-client" });
    if (started.status !== "redirect") throw new Error(started.message);
    const sessionId = new URL(started.url).pathname.split("/").pop()!;

    await control.act(sessionId, "pay");
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    // Published before the webhook's answer: by the time Stripe hears 2xx, the tab has been told.
    await waitFor(() => creditsHeard(mine).length === 1);
    expect(creditsHeard(mine)[0]).toMatchObject({ data: "{}", id: expect.stringMatching(/^\d+$/) });

    await control.refund(sessionId, 500);
    await waitFor(() => control.delivered(sessionId, "charge.refunded"));
    await waitFor(() => creditsHeard(mine).length === 2);
    expect(creditsHeard(theirs)).toEqual([]);
  });
});

describe("a delayed payment (pay later)", () => {
  test("completed unpaid credits nothing; async_payment_succeeded then credits once", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.act(sessionId, "pay-later");
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    expect(await purchasesOf(ownerId)).toEqual([]);
    expect(await creditBalance(ownerId)).toBe(0);
    await control.act(sessionId, "succeed");
    await waitFor(() => control.delivered(sessionId, "checkout.session.async_payment_succeeded"));
    expect(await entriesOf(ownerId)).toEqual([{ kind: "PURCHASE", amount: 100, idempotencyKey: `purchase:${sessionId}` }]);
  });

  test("out of order: async_payment_succeeded before completed still credits once", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.rule({ session: sessionId, hold: true });
    await control.act(sessionId, "pay-later");
    await control.act(sessionId, "succeed");
    const { released } = await control.release("reverse", sessionId);
    expect(released.length).toBeGreaterThanOrEqual(2);
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    const attempts = (await control.events({ session: sessionId })).flatMap((e) => e.attempts.map((a) => ({ ...a, type: e.type })));
    const order = attempts.sort((a, b) => released.indexOf(a.eventId) - released.indexOf(b.eventId)).map((a) => a.type);
    expect(order.indexOf("checkout.session.async_payment_succeeded")).toBeLessThan(order.indexOf("checkout.session.completed"));
    expect(await entriesOf(ownerId)).toEqual([{ kind: "PURCHASE", amount: 100, idempotencyKey: `purchase:${sessionId}` }]);
  });

  test("a failed delayed payment credits nothing", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.act(sessionId, "pay-later");
    await control.act(sessionId, "fail");
    await waitFor(() => control.delivered(sessionId, "checkout.session.async_payment_failed"));
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    expect(await purchasesOf(ownerId)).toEqual([]);
  });
});

describe("refunds", () => {
  test("partial then full: each claws back its share, the last one the rest", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.act(sessionId, "pay");
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    await control.refund(sessionId, 250);
    await waitFor(() => control.delivered(sessionId, "charge.refunded"));
    expect(await creditBalance(ownerId)).toBe(75);
    await control.refund(sessionId);
    await waitFor(async () => ((await control.delivered(sessionId, "charge.refunded"))?.length ?? 0) === 2);
    expect(await creditBalance(ownerId)).toBe(0);
    expect((await purchasesOf(ownerId))[0]).toMatchObject({ status: "REFUNDED", amountRefunded: 1000, creditsClawedBack: 100, creditsOwed: 0 });
    expect((await entriesOf(ownerId)).map((e) => [e.kind, e.amount])).toEqual([
      ["PURCHASE", 100],
      ["REFUND", -25],
      ["REFUND", -75],
    ]);
  });

  test("a refund delivered before the payment's completion is applied when the session is credited", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.rule({ session: sessionId, hold: true });
    await control.act(sessionId, "pay");
    await control.refund(sessionId, 500);
    await control.release("reverse", sessionId);
    await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
    await waitFor(() => control.delivered(sessionId, "charge.refunded"));
    expect(await creditBalance(ownerId)).toBe(50);
    expect((await purchasesOf(ownerId))[0]).toMatchObject({ status: "PARTIALLY_REFUNDED", creditsClawedBack: 50 });
  });
});

describe("what is refused", () => {
  test("a forged or stale signature: 400, nothing credited; the genuine delivery then credits", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.rule({ session: sessionId, type: "checkout.session.completed", hold: true });
    await control.act(sessionId, "pay");
    const [event] = await waitFor(() => control.events({ session: sessionId, type: "checkout.session.completed" }).then((e) => (e.length ? e : undefined)));
    const payload = JSON.stringify({ ...event, attempts: undefined });
    const post = (signature: string | null) =>
      fetch(`${app.baseUrl}/api/webhooks/stripe`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(signature === null ? {} : { "Stripe-Signature": signature }) },
        body: payload,
      });
    const forged = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_not_the_endpoint_secret" });
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 301 });
    const tampered = stripe.webhooks.generateTestHeaderString({ payload: payload.replace('"starter"', '"studio"'), secret: WEBHOOK_SECRET });
    for (const signature of [forged, stale, tampered, null, "t=1,v1=00"]) {
      const response = await post(signature);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { code: "bad_request", message: "The Stripe signature did not verify." } });
    }
    expect(await purchasesOf(ownerId)).toEqual([]);
    expect(app.output()).not.toContain(WEBHOOK_SECRET);
    // Signed with the endpoint's secret and fresh, the same bytes are accepted.
    const good = await post(stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }));
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ received: true, outcome: "credited" });
    expect(await creditBalance(ownerId)).toBe(100);
  });

  test("a session whose price or pack is not the pack's: 2xx, logged, nothing credited", async () => {
    const ownerId = `guest-stripe-mismatch-${process.pid}`;
    const base = {
      mode: "payment" as const,
      client_reference_id: ownerId,
      success_url: `${app.baseUrl}/credits/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${app.baseUrl}/credits`,
    };
    const line = (amount: number, currency = "usd") => [{ quantity: 1, price_data: { currency, unit_amount: amount, product_data: { name: "Starter" } } }];
    const sessions = await Promise.all([
      stripe.checkout.sessions.create({ ...base, line_items: line(1), metadata: { ownerId, packId: "starter", credits: "100" } }),
      stripe.checkout.sessions.create({ ...base, line_items: line(1000, "eur"), metadata: { ownerId, packId: "starter", credits: "100" } }),
      stripe.checkout.sessions.create({ ...base, line_items: line(1000), metadata: { ownerId, packId: "starter", credits: "5000" } }),
      stripe.checkout.sessions.create({ ...base, line_items: line(1000), metadata: { ownerId, packId: "no-such-pack", credits: "100" } }),
      stripe.checkout.sessions.create({ ...base, line_items: line(1000), metadata: { packId: "starter" } }),
    ]);
    for (const session of sessions) await control.act(session.id, "pay");
    for (const session of sessions) await waitFor(() => control.delivered(session.id, "checkout.session.completed"));
    expect(await purchasesOf(ownerId)).toEqual([]);
    expect(await creditBalance(ownerId)).toBe(0);
    expect(app.output().match(/paid but NOT credited/g)).toHaveLength(sessions.length);
  });

  test("events the kit does not use are answered 2xx and change nothing", async () => {
    const { ownerId, sessionId } = await checkout("starter");
    await control.act(sessionId, "decline");
    await waitFor(() => control.delivered(sessionId, "payment_intent.payment_failed"));
    expect(await purchasesOf(ownerId)).toEqual([]);
  });
});

describe("the endpoint", () => {
  test("POST only: GET, PUT, DELETE and OPTIONS are 405 with Allow: POST; no password or cookie is asked", async () => {
    for (const method of ["GET", "PUT", "DELETE", "OPTIONS"]) {
      const response = await fetch(`${app.baseUrl}/api/webhooks/stripe`, { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
    // Everything else stays behind the access gate.
    expect((await fetch(`${app.baseUrl}/credits`)).status).toBe(401);
  });
});
