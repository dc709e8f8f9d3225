// The payments simulator's contract with stripe-node, in process: what the
// kit's Stripe client sends parses as Stripe would read it, and what the
// simulator signs, stripe.webhooks.constructEvent accepts (and nothing else).
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../simulator/payments/config";
import { parseStripeForm } from "../../simulator/payments/form";
import { createPaymentsSimulator } from "../../simulator/payments/server";
import { signPayload } from "../../simulator/payments/webhooks";
import { waitFor } from "../support/wait";

describe("Stripe's form encoding", () => {
  test.each([
    ["mode=payment", { mode: "payment" }],
    ["metadata[ownerId]=guest%3A1&metadata[packId]=starter", { metadata: { ownerId: "guest:1", packId: "starter" } }],
    [
      "line_items[0][quantity]=1&line_items[0][price_data][currency]=usd&line_items[0][price_data][product_data][name]=Starter+pack",
      { line_items: [{ quantity: "1", price_data: { currency: "usd", product_data: { name: "Starter pack" } } }] },
    ],
    ["line_items%5B0%5D%5Bquantity%5D=2", { line_items: [{ quantity: "2" }] }],
    ["expand[]=payment_intent&expand[]=line_items", { expand: ["payment_intent", "line_items"] }],
    ["success_url=https%3A%2F%2Fx.test%2Fok%3Fsession_id%3D%7BCHECKOUT_SESSION_ID%7D", { success_url: "https://x.test/ok?session_id={CHECKOUT_SESSION_ID}" }],
  ])("%s", (body, expected) => {
    expect(parseStripeForm(body)).toEqual(expected);
  });
});

describe("against stripe-node", () => {
  const secret = "whsec_contract_test";
  const received: { id: string; type: string; verified: boolean }[] = [];
  const verifier = new Stripe("sk_test_verifier");
  const endpoint = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    try {
      const event = verifier.webhooks.constructEvent(body, req.headers["stripe-signature"] as string, secret, 300);
      received.push({ id: event.id, type: event.type, verified: true });
      // Each event's first delivery fails (per event, so a retried test meets a fresh one).
      const first = received.filter((r) => r.id === event.id).length === 1;
      res.writeHead(first && event.type === "checkout.session.completed" ? 500 : 200).end();
    } catch {
      received.push({ id: "?", type: "?", verified: false });
      res.writeHead(400).end();
    }
  });
  const started = new Promise<number>((resolve) => endpoint.listen(0, "127.0.0.1", () => resolve((endpoint.address() as AddressInfo).port)));
  let simulator: ReturnType<typeof createPaymentsSimulator> | undefined;

  afterAll(async () => {
    await simulator?.close();
    endpoint.close();
  });

  test("a session made with the SDK, paid on the hosted page, is delivered signed and retried after a 500", async () => {
    const port = await started;
    simulator = createPaymentsSimulator(
      loadConfig({ PAYMENTS_SIMULATOR_PORT: "0", PAYMENTS_SIMULATOR_LOG: "quiet", PAYMENTS_SIMULATOR_WEBHOOK_URL: `http://127.0.0.1:${port}/`, PAYMENTS_SIMULATOR_WEBHOOK_SECRET: secret, PAYMENTS_SIMULATOR_BACKOFF_MS: "50" }),
    );
    const url = new URL(await simulator.listen());
    const stripe = new Stripe("sk_test_contract", { host: url.hostname, port: url.port, protocol: "http" });
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      client_reference_id: "owner-1",
      metadata: { ownerId: "owner-1", packId: "starter", credits: "100" },
      line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: 1000, product_data: { name: "Starter" } } }],
      success_url: "http://app.test/credits/success?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "http://app.test/credits",
    });
    expect(session).toMatchObject({ object: "checkout.session", status: "open", payment_status: "unpaid", amount_total: 1000, currency: "usd", client_reference_id: "owner-1" });

    const paid = await fetch(session.url!.replace(/\/?$/, "/pay"), { method: "POST", redirect: "manual" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`http://app.test/credits/success?session_id=${session.id}`);
    // The first delivery got a 500 and was sent again: waited on the sender's own record of both answers (the
    // endpoint hears the second delivery a moment before the sender records its 200).
    const completed = await waitFor(() => simulator!.store.events.find((e) => e.type === "checkout.session.completed"));
    const attempts = await waitFor(() => {
      const made = simulator!.sender.attempts.filter((a) => a.eventId === completed.id);
      return made.length >= 2 && made;
    });
    expect(attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(received.filter((r) => r.id === completed.id).every((r) => r.verified)).toBe(true);
    expect((await stripe.checkout.sessions.retrieve(session.id)).payment_status).toBe("paid");
  });

  test("the SDK's signature check refuses the simulator's signature under another secret, or stale", () => {
    const payload = JSON.stringify({ id: "evt_1", object: "event" });
    expect(() => verifier.webhooks.constructEvent(payload, signPayload(payload, secret), secret)).not.toThrow();
    expect(() => verifier.webhooks.constructEvent(payload, signPayload(payload, "whsec_other"), secret)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    const stale = signPayload(payload, secret, Math.floor(Date.now() / 1000) - 301);
    expect(() => verifier.webhooks.constructEvent(payload, stale, secret, 300)).toThrow(/Timestamp outside the tolerance zone/);
  });

  test("a live key or none is refused as Stripe refuses it", async () => {
    const url = new URL(`http://127.0.0.1:${(simulator!.server.address() as AddressInfo).port}`);
    const live = new Stripe("sk_live_nope", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
    await expect(live.checkout.sessions.list({ limit: 1 })).rejects.toMatchObject({ type: "StripeAuthenticationError", statusCode: 401 });
  });
});

describe("the control API beyond loopback", () => {
  /** A simulator listening on `host`, asked for its sessions over loopback with `authorization`. */
  async function controlStatus(host: string, authorization: ((token: string | undefined) => string | undefined) | undefined, token?: string) {
    const simulator = createPaymentsSimulator(loadConfig({ PAYMENTS_SIMULATOR_HOST: host, PAYMENTS_SIMULATOR_PORT: "0", PAYMENTS_SIMULATOR_LOG: "quiet", PAYMENTS_SIMULATOR_CONTROL_TOKEN: token }));
    await simulator.listen();
    try {
      const port = (simulator.server.address() as AddressInfo).port;
      const header = authorization?.(simulator.controlToken);
      const response = await fetch(`http://127.0.0.1:${port}/__control/sessions`, { headers: header ? { Authorization: header } : {} });
      return { status: response.status, token: simulator.controlToken };
    } finally {
      await simulator.close();
    }
  }

  test("on loopback (the default) it asks for no token", async () => {
    expect(await controlStatus("127.0.0.1", undefined)).toEqual({ status: 200, token: undefined });
  });

  test("listening on every interface, it asks for a token it made up, and takes only that one", async () => {
    const refused = await controlStatus("0.0.0.0", undefined);
    expect(refused.status).toBe(401);
    expect(refused.token).toMatch(/^[\w-]{32}$/);
    expect((await controlStatus("0.0.0.0", () => "Bearer not-the-token-at-all-000000")).status).toBe(401);
    expect((await controlStatus("0.0.0.0", (token) => `Bearer ${token}`)).status).toBe(200);
  });

  test("PAYMENTS_SIMULATOR_CONTROL_TOKEN chooses the token", async () => {
    const chosen = "a-chosen-control-token-1234";
    expect(await controlStatus("0.0.0.0", () => `Bearer ${chosen}`, chosen)).toEqual({ status: 200, token: chosen });
  });
});
