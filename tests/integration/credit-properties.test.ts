// The credit ledger's rules as a property, on real parts: the app under
// `next start`, the gateway simulator in a process of its own, and this test
// as the gateway's callback sender (the simulator sends none) and as Stripe
// (events signed with the stripe library's test-header helper). fast-check
// draws a sequence of what an owner and the outside world do: submissions
// that fit the balance or not, the gateway finishing a task, its callbacks
// (0 to 3 copies, shuffled with other tasks' callbacks, some sent at once), a
// contradictory callback after the outcome, a gallery read that polls, a
// cron run, a purchase (its completion sent up to 3 times, sometimes after a
// refund of it), refunds, partial or full, and disputes (opened, won, lost, in
// any order, up to 3 copies). A model
// (tests/support/credit-model.ts) follows it; after every step the owner's
// balance and what is held (GET /api/credits) are the model's, and after the
// run is drained (every task finished and its outcome applied, waited for on
// the rows) the ledger is checked row by row: balance = grants + purchases −
// captures − open holds − clawbacks − disputed − what was owed and collected,
// one settlement per generation, a capture only for a SUCCESS the gateway
// reported, each Checkout Session credited once, what is owed taken from the
// next credits and never below zero.
//
// A failure prints fast-check's seed and path; to replay it:
//   CREDIT_PROPERTIES_SEED=<seed> CREDIT_PROPERTIES_PATH=<path> npx vitest run tests/integration/credit-properties.test.ts
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import Stripe from "stripe";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import {
  applyDispute,
  applyRefund,
  completedEvent,
  disputeEvent,
  inflow,
  newBuy,
  DEFAULT_SECONDS,
  gatewayUsd,
  holdFor,
  MODELS,
  PACKS,
  refundedAmount,
  refundedEvent,
  reported,
  settle,
  type Buy,
  type Figure,
  type Gen,
  type Model,
  type PackId,
  type Share,
} from "../support/credit-model";
import { uniqueMarker } from "../support/simulator-control";

// Small: one short video, so that running out (402) and a refund of credits already spent (owed) are a few steps away.
const WELCOME = 12;
const STRIPE_WEBHOOK_SECRET = "whsec_fh_test_properties_Vb7Nc2Rq9Tz4";
const NUM_RUNS = Number(process.env.CREDIT_PROPERTIES_RUNS ?? 20);

const app = await startApp({
  env: {
    CREDITS_WELCOME_GRANT: String(WELCOME),
    CREDITS_WELCOME_GRANTS_PER_ADDRESS: "0",
    // No read polls a task by itself: a poll happens where the sequence says (the rows are made stale first).
    POLL_STALE_MS: "600000",
    MEDIA_STORAGE: "none",
    STRIPE_WEBHOOK_SECRET,
    // The webhook only verifies and applies the events; nothing is asked of a payments server.
    PAYMENTS_SIMULATOR_URL: "http://127.0.0.1:9",
  },
  simulatorEnv: { SIMULATOR_START_CREDITS: "1000000" },
});
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

afterAll(() => app.close());

const stripe = new Stripe("sk_test_unused");

// ---------------------------------------------------------------------------
// The commands. Picks are indexes taken modulo what exists when they run, so
// that every drawn sequence (and every shrunk one) can run.
type Command =
  | { kind: "submit"; model: (typeof MODELS)[number]; duration: number | null; outcome: "success" | "failure" | "refused"; figure: Figure }
  | { kind: "finish"; pick: number }
  | { kind: "callbacks"; sends: { pick: number; copies: number }[]; order: number[]; atOnce: boolean }
  | { kind: "contradict"; pick: number }
  | { kind: "poll" }
  | { kind: "cron" }
  | { kind: "purchase"; pack: PackId; copies: number; atOnce: boolean; refundFirst: Share | null }
  | { kind: "refund"; pick: number; share: Share }
  | { kind: "dispute"; pick: number; change: "opened" | "won" | "lost"; copies: number; atOnce: boolean };

const pick = fc.nat({ max: 20 });
const share = fc.constantFrom<Share>("quarter", "half", "full");
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      model: fc.constantFrom(...MODELS),
      duration: fc.constantFrom(null, 2, 3, 5, 7, 10, 10),
      outcome: fc.oneof(
        { weight: 5, arbitrary: fc.constant("success" as const) },
        { weight: 3, arbitrary: fc.constant("failure" as const) },
        { weight: 1, arbitrary: fc.constant("refused" as const) },
      ),
      figure: fc.constantFrom<Figure>("gateway", "below", "above", "zero"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("finish" as const), pick }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("callbacks" as const),
      sends: fc.array(fc.record({ pick, copies: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 3 }),
      order: fc.array(fc.nat({ max: 1000 }), { minLength: 9, maxLength: 9 }),
      atOnce: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("contradict" as const), pick }) },
  { weight: 2, arbitrary: fc.constant({ kind: "poll" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "cron" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("purchase" as const),
      pack: fc.constantFrom<PackId>("starter", "starter", "creator", "studio"),
      copies: fc.integer({ min: 1, max: 3 }),
      atOnce: fc.boolean(),
      refundFirst: fc.option(share, { freq: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("refund" as const), pick, share }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("dispute" as const),
      pick,
      change: fc.constantFrom("opened" as const, "opened" as const, "won" as const, "lost" as const),
      copies: fc.integer({ min: 1, max: 3 }),
      atOnce: fc.boolean(),
    }),
  },
);

// ---------------------------------------------------------------------------
// The outside world's requests.
type Visitor = ReturnType<typeof app.visitor>;

async function creditsOf(visitor: Visitor) {
  const response = await visitor("/api/credits");
  expect(response.status).toBe(200);
  return (await response.json()) as { credits: number; held: number };
}

const deliverCallback = (generationId: string, body: unknown) =>
  fetch(`${app.baseUrl}/api/webhooks/gateway?token=${encodeURIComponent(callbackTokenFor(generationId, env.WEBHOOK_SECRET))}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** One Stripe delivery of `event`, signed now with the endpoint's secret; the app's `outcome`. */
async function sendStripe(event: object): Promise<string> {
  const payload = JSON.stringify(event);
  const response = await fetch(`${app.baseUrl}/api/webhooks/stripe`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Stripe-Signature": stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK_SECRET }) },
    body: payload,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { outcome: string }).outcome;
}

/** The simulator's task for `g` (it exists once the submit was accepted). */
async function taskOf(g: Gen) {
  const [task] = await app.simulator.tasks(g.marker);
  if (!task) throw new Error(`no simulated task for ${g.marker}`);
  return task;
}

/** The callback the gateway sends for `g`'s finished task (or, `contradict`, the opposite outcome). */
async function callbackBody(g: Gen, { contradict = false } = {}) {
  const task = await taskOf(g);
  const success = (g.outcome === "success") !== contradict;
  if (!success) return { taskId: task.taskId, state: "FAILURE", resultUrls: [], creditsConsumed: 0, failCode: "generation_failed", failMsg: "The model could not generate this video." };
  const resultUrls = task.resultUrls.length > 0 ? task.resultUrls : [`${app.simulator.baseUrl}/media/${task.taskId}/late.mp4`];
  // A contradicting SUCCESS claims a cost below the hold: applied, it would capture.
  return { taskId: task.taskId, state: "SUCCESS", resultUrls, creditsConsumed: contradict ? 0.1 : reported(g, task.creditsConsumed) };
}

// ---------------------------------------------------------------------------
// One run: a fresh owner, the commands, the drain, the checks.
async function runSequence(commands: Command[]) {
  const visitor = app.visitor();
  expect(await creditsOf(visitor)).toEqual({ credits: WELCOME, held: 0 });
  const ownerId = await visitor.ownerId();
  const m: Model = { balance: WELCOME, held: 0, purchases: 0, charges: 0, clawbacks: 0, disputed: 0, collections: 0, gens: [], buys: [] };
  const withTask = () => m.gens.filter((g) => g.state !== "SUBMIT_FAILED");
  const at = <T>(list: T[], i: number) => (list.length === 0 ? undefined : list[i % list.length]);

  const finishAtGateway = async (g: Gen) => {
    if (g.finished) return;
    await app.simulator.settle(g.marker);
    g.finished = true;
  };

  /** Makes the owner's open rows due for a poll (as time passing would), runs `poll`, and waits for every finished task's outcome. */
  const pollWith = async (poll: () => Promise<void>) => {
    await prisma.generation.updateMany({ where: { ownerId, state: "PENDING" }, data: { lastHeardAt: new Date(0), pollLeaseUntil: null } });
    const due = m.gens.filter((g) => g.state === "PENDING" && g.finished);
    await poll();
    await waitFor(async () => (await prisma.generation.count({ where: { id: { in: due.map((g) => g.id) }, state: "PENDING" } })) === 0, 20_000);
    // The poll reads the gateway's own figure.
    for (const g of due) settle(m, g, g.outcome === "success" ? gatewayUsd(g) : null);
  };
  const galleryRead = async () => {
    const response = await visitor("/api/generations?limit=100");
    expect(response.status).toBe(200);
  };
  const cronRun = async () => {
    const response = await fetch(`${app.baseUrl}/api/cron/reconcile`, { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    expect(response.status).toBe(200);
  };

  const step = async (c: Command) => {
    switch (c.kind) {
      case "submit": {
        const marker = uniqueMarker("prop");
        const seconds = c.duration ?? DEFAULT_SECONDS;
        const hold = holdFor(seconds);
        await app.simulator.scenario(
          c.outcome === "refused"
            ? { match: marker, submitStatus: 422, times: 1 }
            : { match: marker, outcome: c.outcome, pendingMs: 600_000, callback: { mode: "drop" }, times: 1 },
        );
        const rowsBefore = await prisma.generation.count({ where: { ownerId } });
        const response = await visitor("/api/generations", {
          method: "POST",
          json: { model: c.model, input: { prompt: `property ${marker}`, ...(c.duration === null ? {} : { duration: c.duration }) } },
        });
        const body = (await response.json()) as { id?: string; error?: { code: string }; generation?: { id: string; state: string } };
        if (m.balance < hold) {
          // Refused before anything: no row, no hold, no gateway call.
          expect(response.status, JSON.stringify(body)).toBe(402);
          expect(body.error?.code).toBe("insufficient_credits");
          expect(await prisma.generation.count({ where: { ownerId } })).toBe(rowsBefore);
          expect(await prisma.creditEntry.count({ where: { ownerId, kind: "HOLD" } })).toBe(m.gens.length);
          expect(await app.simulator.requests(marker)).toEqual([]);
          await app.simulator.clearScenarios(marker);
          return;
        }
        const g: Gen = { id: "", marker, seconds, hold, outcome: c.outcome === "failure" ? "failure" : "success", figure: c.figure, finished: false, state: "PENDING", charge: 0, overHold: false };
        if (c.outcome === "refused") {
          // The gateway refused it: the hold was taken and given back.
          expect(response.status, JSON.stringify(body)).toBe(422);
          expect(body.generation?.state).toBe("SUBMIT_FAILED");
          m.gens.push({ ...g, id: body.generation!.id, state: "SUBMIT_FAILED", finished: true });
          // Its release is credits coming in like any other: what is owed is paid from it.
          m.balance -= hold;
          inflow(m, hold);
          return;
        }
        expect(response.status, JSON.stringify(body)).toBe(201);
        m.gens.push({ ...g, id: body.id! });
        m.balance -= hold;
        m.held += hold;
        return;
      }
      case "finish": {
        const g = at(
          m.gens.filter((x) => !x.finished),
          c.pick,
        );
        if (g) await finishAtGateway(g);
        return;
      }
      case "callbacks": {
        // A gateway calls back once it has finished: those tasks finish now.
        const chosen = new Map<Gen, number>();
        for (const send of c.sends) {
          const g = at(withTask(), send.pick);
          if (g) chosen.set(g, Math.max(chosen.get(g) ?? 0, send.copies));
        }
        const deliveries: { g: Gen; body: unknown; key: number }[] = [];
        for (const [g, copies] of chosen) {
          await finishAtGateway(g);
          const body = await callbackBody(g);
          for (let i = 0; i < copies; i++) deliveries.push({ g, body, key: c.order[deliveries.length % c.order.length]! + deliveries.length / 100 });
        }
        deliveries.sort((a, b) => a.key - b.key);
        const statuses = c.atOnce
          ? await Promise.all(deliveries.map((d) => deliverCallback(d.g.id, d.body).then((r) => r.status)))
          : await deliveries.reduce<Promise<number[]>>(async (done, d) => [...(await done), (await deliverCallback(d.g.id, d.body)).status], Promise.resolve([]));
        expect(statuses).toEqual(deliveries.map(() => 200));
        for (const [g, copies] of chosen) {
          if (copies > 0 && g.state === "PENDING") settle(m, g, g.outcome === "success" ? reported(g, gatewayUsd(g)) : null);
        }
        return;
      }
      case "contradict": {
        // After its outcome landed, a callback saying the opposite changes nothing.
        const g = at(
          m.gens.filter((x) => x.state === "SUCCESS" || x.state === "FAILURE"),
          c.pick,
        );
        if (!g) return;
        const response = await deliverCallback(g.id, await callbackBody(g, { contradict: true }));
        expect(response.status).toBe(200);
        return;
      }
      case "poll":
        return pollWith(galleryRead);
      case "cron":
        return pollWith(cronRun);
      case "purchase": {
        const b = newBuy(randomUUID().replaceAll("-", ""), c.pack);
        if (c.refundFirst) {
          // Events arrive in any order: a refund before the session's completion waits for it.
          expect(await sendStripe(refundedEvent(b, refundedAmount(b.pack, c.refundFirst)))).toBe("refund_pending");
          b.early = refundedAmount(b.pack, c.refundFirst);
        }
        const event = completedEvent(ownerId, b);
        const outcomes = c.atOnce
          ? await Promise.all(Array.from({ length: c.copies }, () => sendStripe(event)))
          : await Array.from({ length: c.copies }).reduce<Promise<string[]>>(async (done) => [...(await done), await sendStripe(event)], Promise.resolve([]));
        expect([...outcomes].sort()).toEqual(["credited", ...Array<string>(c.copies - 1).fill("already_credited")].sort());
        // The purchase pays what earlier purchases' refunds and disputes left owed.
        inflow(m, PACKS[b.pack].credits);
        m.buys.push(b);
        m.purchases += PACKS[b.pack].credits;
        if (b.early > 0) applyRefund(m, b, b.early);
        return;
      }
      case "refund": {
        const b = at(m.buys, c.pick);
        if (!b) {
          // A refund of a payment that bought no credits (yet): remembered, nothing changes.
          const stranger: Buy = newBuy(randomUUID().replaceAll("-", ""), "starter");
          expect(await sendStripe(refundedEvent(stranger, refundedAmount("starter", c.share)))).toBe("refund_pending");
          return;
        }
        expect(await sendStripe(refundedEvent(b, refundedAmount(b.pack, c.share)))).toBe("refund_applied");
        applyRefund(m, b, refundedAmount(b.pack, c.share));
        return;
      }
      case "dispute": {
        const b = at(m.buys, c.pick);
        if (!b) return;
        const event = disputeEvent(b, c.change);
        const outcomes = c.atOnce
          ? await Promise.all(Array.from({ length: c.copies }, () => sendStripe(event)))
          : await Array.from({ length: c.copies }).reduce<Promise<string[]>>(async (done) => [...(await done), await sendStripe(event)], Promise.resolve([]));
        expect(outcomes).toEqual(outcomes.map(() => "dispute_applied"));
        applyDispute(m, b, c.change);
        return;
      }
    }
  };

  for (const [i, c] of commands.entries()) {
    await step(c);
    const seen = await creditsOf(visitor);
    expect(seen, `after step ${i} (${c.kind})`).toEqual({ credits: m.balance, held: m.held });
    expect(seen.credits).toBeGreaterThanOrEqual(0);
  }

  // Drain: the gateway finishes whatever is left, a cron run applies it.
  for (const g of m.gens.filter((x) => x.state === "PENDING")) await finishAtGateway(g);
  await pollWith(cronRun);
  expect(m.gens.filter((g) => g.state === "PENDING")).toEqual([]);
  await checkLedger(ownerId, m, await creditsOf(visitor));
}

async function checkLedger(ownerId: string, m: Model, seen: { credits: number; held: number }) {
  // The model's own arithmetic, then the app's balance against it.
  expect(m.held).toBe(0);
  expect(m.balance).toBe(WELCOME + m.purchases - m.charges - m.held - m.clawbacks - m.disputed - m.collections);
  expect(seen).toEqual({ credits: m.balance, held: 0 });

  const entries = await prisma.creditEntry.findMany({ where: { ownerId }, orderBy: { id: "asc" } });
  const sum = (kind: string) => entries.filter((e) => e.kind === kind).reduce((s, e) => s + e.amount, 0);
  expect(sum("GRANT")).toBe(WELCOME);
  expect(sum("PURCHASE")).toBe(m.purchases);
  expect(-sum("REFUND") + 0).toBe(m.clawbacks);
  expect(-sum("DISPUTE") + 0).toBe(m.disputed);
  expect(-sum("COLLECT") + 0).toBe(m.collections);
  expect(-sum("HOLD") + 0).toBe(m.gens.reduce((s, g) => s + g.hold, 0));
  expect(entries.reduce((s, e) => s + e.amount, 0)).toBe(m.balance);

  // Generations: the model's, each held once and settled once, as its outcome says.
  const rows = await prisma.generation.findMany({ where: { ownerId } });
  expect(rows.map((r) => r.id).sort()).toEqual(m.gens.map((g) => g.id).sort());
  for (const g of m.gens) {
    const row = rows.find((r) => r.id === g.id)!;
    expect(row.state, g.id).toBe(g.state);
    const mine = entries.filter((e) => e.generationId === g.id);
    expect(mine.filter((e) => e.kind === "HOLD").map((e) => e.amount)).toEqual([-g.hold]);
    const settlements = mine.filter((e) => e.kind === "CAPTURE" || e.kind === "RELEASE");
    expect(settlements, `settlements of ${g.id}`).toHaveLength(1);
    const [settlement] = settlements;
    if (settlement!.kind === "CAPTURE") {
      // Never a capture without a SUCCESS, in the app and at the gateway.
      expect(row.state).toBe("SUCCESS");
      expect((await taskOf(g)).state).toBe("SUCCESS");
    }
    if (g.state === "SUCCESS") {
      expect(settlement).toMatchObject({ kind: "CAPTURE", amount: g.hold - g.charge });
      if (g.overHold) expect(settlement!.note).toMatch(/above the hold/);
    } else {
      expect(settlement).toMatchObject({ kind: "RELEASE", amount: g.hold });
    }
  }
  // Nothing settles a generation of someone else's, nor one twice across owners.
  const settled = await prisma.creditEntry.findMany({ where: { settles: { in: m.gens.map((g) => g.id) } } });
  expect(settled.every((e) => e.ownerId === ownerId)).toBe(true);

  // Purchases: each session credited once, its refunds clawed back as the rules say.
  const purchases = await prisma.purchase.findMany({ where: { ownerId } });
  expect(purchases.map((p) => p.checkoutSessionId).sort()).toEqual(m.buys.map((b) => b.sessionId).sort());
  for (const b of m.buys) {
    expect(entries.filter((e) => e.kind === "PURCHASE" && e.checkoutSessionId === b.sessionId).map((e) => e.amount)).toEqual([PACKS[b.pack].credits]);
    expect(await prisma.creditEntry.count({ where: { checkoutSessionId: b.sessionId, kind: "PURCHASE" } })).toBe(1);
    expect(purchases.find((p) => p.checkoutSessionId === b.sessionId)).toMatchObject({
      packId: b.pack,
      amountRefunded: b.amountRefunded,
      creditsClawedBack: b.clawedBack,
      creditsOwed: b.owed,
      creditsCollected: b.collected,
      disputeStatus: b.dispute,
      status: b.amountRefunded === 0 ? "PAID" : b.amountRefunded >= PACKS[b.pack].unitAmount ? "REFUNDED" : "PARTIALLY_REFUNDED",
    });
    expect(-entries.filter((e) => e.kind === "REFUND" && e.checkoutSessionId === b.sessionId).reduce((s, e) => s + e.amount, 0) + 0).toBe(b.refundTaken);
    // Never more collected for a purchase than it left owed.
    expect(b.collected).toBeLessThanOrEqual(b.owed);
  }
}

describe("the credit ledger under random sequences of submissions, callbacks, polls, cron runs, purchases, refunds and disputes", () => {
  test(
    "balance = grants + purchases − captures − open holds − clawbacks − disputed − owed collected; one settlement per generation, a capture only for a SUCCESS; each session credited once",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 14 }), runSequence),
        {
          numRuns: NUM_RUNS,
          seed: process.env.CREDIT_PROPERTIES_SEED === undefined ? undefined : Number(process.env.CREDIT_PROPERTIES_SEED),
          path: process.env.CREDIT_PROPERTIES_PATH,
        },
      );
    },
    240_000,
  );
});
