// Refunds and chargebacks never leave the buyer the credits they got their
// money back for, end to end on real parts: the app under `next start`, the
// gateway simulator running the videos, and the payments simulator sending
// signed Stripe events (refunds, disputes) to POST /api/webhooks/stripe,
// duplicated and reordered on demand. What is asserted is what the owner and
// the operator see: the balance, the ledger rows, the purchase's figures.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { startApp, waitFor } from "../support/app";
import { PaymentsControl, startPaymentsSimulator } from "../support/payments-simulator";
import { uniqueMarker } from "../support/simulator-control";

const WEBHOOK_SECRET = "whsec_fh_test_Dq3Lr8Vn2Kx6Pw1Zs";
const WELCOME = 25;
// 480p at 0.1408 USD/s, markup 1.5, a credit $0.10: 5 s holds 11 credits.
const HOLD_5S = 11;

const appPort = await freePort();
const payments = await startPaymentsSimulator({
  PAYMENTS_SIMULATOR_WEBHOOK_URL: `http://127.0.0.1:${appPort}/api/webhooks/stripe`,
  PAYMENTS_SIMULATOR_WEBHOOK_SECRET: WEBHOOK_SECRET,
  PAYMENTS_SIMULATOR_BACKOFF_MS: "100",
});
const control = new PaymentsControl(payments.url);
const app = await startApp({
  port: appPort,
  env: { PAYMENTS_SIMULATOR_URL: payments.url, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, CREDITS_WELCOME_GRANT: String(WELCOME) },
}).catch((error) => {
  payments.child.kill("SIGKILL");
  throw error;
});

const { prisma } = await import("@/lib/db");
const { startCheckout } = await import("@/lib/payments/checkout");

beforeAll(() => app.simulator.reset(10_000));
afterAll(async () => {
  payments.child.kill("SIGTERM");
  await app.close();
});

type Visitor = ReturnType<typeof app.visitor>;

async function balance(visitor: Visitor): Promise<number> {
  const response = await visitor("/api/credits");
  expect(response.status).toBe(200);
  return ((await response.json()) as { credits: number }).credits;
}

/** A visitor welcomed with the grant, who has bought the 100-credit pack: 125 credits. */
async function buyer() {
  const visitor = app.visitor();
  expect(await balance(visitor)).toBe(WELCOME);
  const ownerId = await visitor.ownerId();
  const started = await startCheckout({ viewer: { id: ownerId }, packId: "starter", visitor: "test-client" });
  if (started.status !== "redirect") throw new Error(started.message);
  const sessionId = new URL(started.url).pathname.split("/").pop()!;
  await control.act(sessionId, "pay");
  await waitFor(() => control.delivered(sessionId, "checkout.session.completed"));
  expect(await balance(visitor)).toBe(WELCOME + 100);
  return { visitor, ownerId, sessionId };
}

/** Starts `count` 5-second videos that stay PENDING until the test settles them, and fail then. */
async function startVideos(visitor: Visitor, count: number) {
  const marker = uniqueMarker("refunded");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, outcome: "failure" });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `a quay at dusk ${i} ${marker}`, duration: 5 } } });
    expect(response.status).toBe(201);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return { marker, ids };
}

const allFailed = (ids: string[]) =>
  waitFor(async () => (await prisma.generation.count({ where: { id: { in: ids }, state: "FAILURE" } })) === ids.length, 60_000);
const sumOf = async (ownerId: string, kind: "COLLECT" | "DISPUTE" | "REFUND" | "RELEASE") =>
  Number((await prisma.creditEntry.aggregate({ where: { ownerId, kind }, _sum: { amount: true } }))._sum.amount ?? 0);
const purchase = (sessionId: string) => prisma.purchase.findUniqueOrThrow({ where: { checkoutSessionId: sessionId } });

describe("a full refund while the pack's credits are held by videos", () => {
  test("every video then fails: the released holds pay what is owed, and the balance ends at the welcome grant, not 121", async () => {
    const { visitor, ownerId, sessionId } = await buyer();
    const { marker, ids } = await startVideos(visitor, 11);
    expect(await balance(visitor)).toBe(WELCOME + 100 - 11 * HOLD_5S);

    await control.refund(sessionId);
    await waitFor(() => control.delivered(sessionId, "charge.refunded"));
    expect(await purchase(sessionId)).toMatchObject({ status: "REFUNDED", creditsClawedBack: 4, creditsOwed: 96, creditsCollected: 0 });
    expect(await balance(visitor)).toBe(0);

    await app.simulator.settle(marker);
    await allFailed(ids);
    await waitFor(async () => (await sumOf(ownerId, "RELEASE")) === 11 * HOLD_5S);
    expect(await balance(visitor)).toBe(WELCOME);
    expect(await sumOf(ownerId, "COLLECT")).toBe(-96);
    expect(await purchase(sessionId)).toMatchObject({ creditsOwed: 96, creditsCollected: 96 });

    // The history says what happened to the owner, in their words.
    const page = await (await visitor("/credits")).text();
    expect(page).toContain("Refunded purchase: 96 credits owed, taken from your next credits");
    expect(page).toContain("Credits owed for a refunded or disputed purchase, taken from a released hold");
  });

  test("what is still owed after the releases is taken from the next purchase, and only that", async () => {
    const { visitor, ownerId, sessionId } = await buyer();
    // 120 of 125 held: the refund takes the 5 left and owes 95; 2 videos fail (22 back, all collected).
    const { marker, ids } = await startVideos(visitor, 2);
    const busy = await startVideos(visitor, 8);
    expect(await balance(visitor)).toBe(WELCOME + 100 - 10 * HOLD_5S);
    await control.refund(sessionId);
    await waitFor(() => control.delivered(sessionId, "charge.refunded"));
    await app.simulator.settle(marker);
    await allFailed(ids);
    await waitFor(async () => (await sumOf(ownerId, "RELEASE")) === 2 * HOLD_5S);
    expect(await balance(visitor)).toBe(0);
    expect(await purchase(sessionId)).toMatchObject({ creditsOwed: 100 - 15, creditsCollected: 22 });

    const second = await startCheckout({ viewer: { id: ownerId }, packId: "starter", visitor: "test-client" });
    if (second.status !== "redirect") throw new Error(second.message);
    const secondId = new URL(second.url).pathname.split("/").pop()!;
    await control.act(secondId, "pay");
    await waitFor(() => control.delivered(secondId, "checkout.session.completed"));
    // 63 still owed: 100 bought, 63 taken, 37 left.
    expect(await balance(visitor)).toBe(100 - (85 - 22));
    expect(await purchase(sessionId)).toMatchObject({ creditsOwed: 85, creditsCollected: 85 });

    await app.simulator.settle(busy.marker);
    await allFailed(busy.ids);
    await waitFor(async () => (await balance(visitor)) === 37 + 8 * HOLD_5S);
    expect(await sumOf(ownerId, "COLLECT")).toBe(-85);
  });
});

describe("a chargeback (dispute)", () => {
  test("created takes the pack's credits back like a full refund; closed won gives them back once; duplicates change nothing", async () => {
    const { visitor, ownerId, sessionId } = await buyer();
    await control.rule({ session: sessionId, type: "charge.dispute.created", duplicates: 3 });
    await control.rule({ session: sessionId, type: "charge.dispute.closed", duplicates: 3 });
    await control.dispute(sessionId, "dispute");
    await waitFor(async () => (await control.delivered(sessionId, "charge.dispute.created", 4)) !== undefined);
    expect(await balance(visitor)).toBe(WELCOME);
    expect(await purchase(sessionId)).toMatchObject({ disputeStatus: "open", disputeClawedBack: 100, disputeOwed: 0 });
    expect(app.output()).toMatch(/Stripe dispute dp_test_\w+ of pi_test_\w+ \(event evt_\w+, opened/);

    await control.dispute(sessionId, "dispute-won");
    await waitFor(async () => (await control.delivered(sessionId, "charge.dispute.closed", 4)) !== undefined);
    expect(await balance(visitor)).toBe(WELCOME + 100);
    expect(await purchase(sessionId)).toMatchObject({ disputeStatus: "won", creditsClawedBack: 0, creditsOwed: 0 });
    expect(await sumOf(ownerId, "DISPUTE")).toBe(0);
    expect(await prisma.creditEntry.count({ where: { ownerId, kind: "DISPUTE" } })).toBe(2);
  });

  test("closed lost keeps them taken; credits already held are owed and collected as the videos fail", async () => {
    const { visitor, ownerId, sessionId } = await buyer();
    const { marker, ids } = await startVideos(visitor, 5);
    await control.dispute(sessionId, "dispute");
    await waitFor(() => control.delivered(sessionId, "charge.dispute.created"));
    expect(await balance(visitor)).toBe(0);
    expect(await purchase(sessionId)).toMatchObject({ disputeStatus: "open", disputeClawedBack: 70, disputeOwed: 30 });
    await control.dispute(sessionId, "dispute-lost");
    await waitFor(() => control.delivered(sessionId, "charge.dispute.closed"));
    expect(await purchase(sessionId)).toMatchObject({ disputeStatus: "lost", creditsOwed: 30 });

    await app.simulator.settle(marker);
    await allFailed(ids);
    await waitFor(async () => (await sumOf(ownerId, "RELEASE")) === 5 * HOLD_5S);
    expect(await balance(visitor)).toBe(WELCOME);
    expect(await purchase(sessionId)).toMatchObject({ creditsOwed: 30, creditsCollected: 30 });
  });

  test("won after part of what it left owed was collected: what was taken and collected comes back, the rest is forgiven", async () => {
    const { visitor, sessionId } = await buyer();
    const { marker, ids } = await startVideos(visitor, 5);
    const busy = await startVideos(visitor, 5);
    // 110 held, 15 left: the dispute takes 15 and owes 85; 5 videos fail, 55 collected, 30 still owed.
    await control.dispute(sessionId, "dispute");
    await waitFor(() => control.delivered(sessionId, "charge.dispute.created"));
    await app.simulator.settle(marker);
    await allFailed(ids);
    await waitFor(async () => (await purchase(sessionId)).creditsCollected === 55);
    expect(await balance(visitor)).toBe(0);

    await control.dispute(sessionId, "dispute-won");
    await waitFor(() => control.delivered(sessionId, "charge.dispute.closed"));
    expect(await balance(visitor)).toBe(15 + 55);
    expect(await purchase(sessionId)).toMatchObject({ disputeStatus: "won", creditsOwed: 0, creditsCollected: 0, creditsClawedBack: 0 });
    await app.simulator.settle(busy.marker);
    await allFailed(busy.ids);
    await waitFor(async () => (await balance(visitor)) === WELCOME + 100);
  });

  test.each([
    ["won", "dispute-won", WELCOME + 100, "won"],
    ["lost", "dispute-lost", WELCOME, "lost"],
  ] as const)("reordered: closed %s delivered before created, each twice", async (_, close, expected, status) => {
    const { visitor, sessionId } = await buyer();
    await control.rule({ session: sessionId, type: "charge.dispute.created", hold: true, duplicates: 1 });
    await control.rule({ session: sessionId, type: "charge.dispute.closed", hold: true, duplicates: 1 });
    await control.dispute(sessionId, "dispute");
    await control.dispute(sessionId, close);
    const { released } = await control.release("reverse", sessionId);
    expect(released.length).toBe(2);
    // Each copy's first attempt is answered before the next event leaves: the app hears the close first.
    await waitFor(() => control.delivered(sessionId, "charge.dispute.created", 2));
    await waitFor(() => control.delivered(sessionId, "charge.dispute.closed", 2));
    expect(await balance(visitor)).toBe(expected);
    expect(await purchase(sessionId)).toMatchObject({ disputeStatus: status });
  });
});
