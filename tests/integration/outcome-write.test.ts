// The outcome write (lib/database/outcome-write*.ts) on the engine under test:
// the conditional update and its delivery row stored together or not at all,
// in the exact form Prisma writes, so that Prisma reads and filters them.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { createClient } from "@libsql/client";
import { describe, expect, test } from "vitest";
import type { OutcomeWrite } from "@/lib/database/outcome-write";
import { testEngine } from "../support/test-database";

const { prisma, writeOutcome } = await import("@/lib/db");

async function pendingGeneration(overrides: { createdAt?: Date; state?: "PENDING" | "FAILURE"; errorCode?: string; ownerId?: string; emailWhenReady?: boolean; deletedAt?: Date } = {}) {
  const id = `ow-${randomUUID()}`;
  const taskId = `task_${id}`;
  await prisma.generation.create({ data: { id, taskId, model: "m", prompt: "p", ownerId: "outcome-owner", state: "PENDING", ...overrides } });
  return { id, taskId };
}

const success = { kind: "terminal", state: "SUCCESS", resultUrls: '["https://cdn.example/v.mp4"]', creditsConsumed: 0.704, errorCode: null, errorMessage: null, gatewayMetadata: '{"seed":7}', resultUrlsDropped: 2 } as const;

function terminalWrite({ id, taskId }: { id: string; taskId: string }, extra: Partial<OutcomeWrite> = {}): OutcomeWrite {
  return {
    generationId: id,
    taskId,
    change: success,
    replacesFailureCode: "task_not_found",
    now: new Date(),
    delivery: { source: "CALLBACK", reportedState: "SUCCESS", ifMatched: "APPLIED", ifNotMatched: { duplicateOf: "SUCCESS", onlyIfHeld: false } },
    ...extra,
  };
}

const deliveriesOf = (generationId: string) => prisma.delivery.findMany({ where: { generationId }, orderBy: { id: "asc" } });

describe(`the outcome write (${testEngine()})`, () => {
  test("a PENDING row: the transition and its APPLIED delivery, as Prisma reads them back", async () => {
    const generation = await pendingGeneration();
    const now = new Date(Date.now() - 1234);
    const written = await writeOutcome(terminalWrite(generation, { now }));

    const row = await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } });
    // What the live event is built from, with what the write set: the same dates as Prisma reads them.
    expect(written.row).toEqual({
      id: generation.id,
      state: "SUCCESS",
      createdAt: row.createdAt,
      updatedAt: now,
      ownerId: "outcome-owner",
      deletedAt: null,
      callbackEnabled: row.callbackEnabled,
    });
    expect(row).toMatchObject({ state: "SUCCESS", resultUrls: success.resultUrls, creditsConsumed: 0.704, gatewayMetadata: '{"seed":7}', resultUrlsDropped: 2, errorCode: null });
    expect([row.completedAt, row.lastHeardAt, row.updatedAt]).toEqual([now, now, now]);
    const [delivery] = await deliveriesOf(generation.id);
    expect(written.delivery).toEqual({ id: delivery!.id, outcome: "APPLIED" });
    expect(delivery).toMatchObject({ taskId: generation.taskId, source: "CALLBACK", outcome: "APPLIED", reportedState: "SUCCESS", detail: null, createdAt: now });
    // Written in the form Prisma writes, so Prisma's own filters on the dates find the rows.
    expect(await prisma.generation.count({ where: { id: generation.id, completedAt: { gte: now, lte: now } } })).toBe(1);
    expect(await prisma.delivery.count({ where: { generationId: generation.id, createdAt: { gt: new Date(now.getTime() - 1) } } })).toBe(1);
  });

  test("the same report again: nothing changes, a DUPLICATE is recorded; another terminal state: LATE_IGNORED", async () => {
    const generation = await pendingGeneration();
    await writeOutcome(terminalWrite(generation));
    const before = await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } });

    const again = await writeOutcome(terminalWrite(generation, { change: { ...success, creditsConsumed: 99 } }));
    expect(again.row).toBeNull();
    expect(again.delivery?.outcome).toBe("DUPLICATE");
    const failure = await writeOutcome(
      terminalWrite(generation, {
        change: { kind: "terminal", state: "FAILURE", resultUrls: "[]", creditsConsumed: 0, errorCode: "x", errorMessage: "y", gatewayMetadata: null, resultUrlsDropped: 0 },
        delivery: { source: "POLL", reportedState: "FAILURE", ifMatched: "APPLIED", ifNotMatched: { duplicateOf: "FAILURE", onlyIfHeld: false } },
      }),
    );
    expect(failure).toMatchObject({ row: null, delivery: { outcome: "LATE_IGNORED" } });

    expect(await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } })).toEqual(before);
    expect((await deliveriesOf(generation.id)).map((d) => [d.source, d.outcome])).toEqual([
      ["CALLBACK", "APPLIED"],
      ["CALLBACK", "DUPLICATE"],
      ["POLL", "LATE_IGNORED"],
    ]);
  });

  test("twenty copies at once: one transition, nineteen DUPLICATE", async () => {
    const generation = await pendingGeneration();
    const results = await Promise.all(Array.from({ length: 20 }, () => writeOutcome(terminalWrite(generation))));
    expect(results.filter((r) => r.row !== null)).toHaveLength(1);
    const outcomes = (await deliveriesOf(generation.id)).map((d) => d.outcome).sort();
    expect(outcomes).toEqual(["APPLIED", ...Array(19).fill("DUPLICATE")]);
  });

  test("twenty copies at once, the owner asking for an email: one ReadyEmail row, made due by the one write that moved the row", async () => {
    const generation = await pendingGeneration({ ownerId: "user:outcome-mail", emailWhenReady: true });
    const now = new Date();
    const giveUpAt = new Date(now.getTime() + 60_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => writeOutcome(terminalWrite(generation, { now, readyEmail: { giveUpAt } }))));
    expect(results.filter((r) => r.readyEmail)).toEqual(results.filter((r) => r.row !== null));
    expect(results.filter((r) => r.readyEmail)).toHaveLength(1);
    expect(await prisma.readyEmail.findMany({ where: { generationId: generation.id } })).toEqual([
      expect.objectContaining({ outcome: "SUCCESS", ownerId: "user:outcome-mail", state: "PENDING", attempts: 0, nextRunAt: now, giveUpAt, createdAt: now }),
    ]);
  });

  test("a ready email only where asked for and not deleted; an inferred failure replaced by the real success: one, for the success", async () => {
    const giveUpAt = new Date(Date.now() + 60_000);
    const notAsked = await pendingGeneration();
    const deleted = await pendingGeneration({ emailWhenReady: true, deletedAt: new Date() });
    for (const generation of [notAsked, deleted]) {
      expect((await writeOutcome(terminalWrite(generation, { readyEmail: { giveUpAt } }))).readyEmail).toBe(false);
    }
    // Without `readyEmail` (the writer's caller did not ask), none either.
    const unasked = await pendingGeneration({ emailWhenReady: true });
    expect((await writeOutcome(terminalWrite(unasked))).readyEmail).toBe(false);
    const inferred = await pendingGeneration({ emailWhenReady: true, state: "FAILURE", errorCode: "task_not_found" });
    expect((await writeOutcome(terminalWrite(inferred, { readyEmail: { giveUpAt } }))).readyEmail).toBe(true);
    expect((await writeOutcome(terminalWrite(inferred, { readyEmail: { giveUpAt } }))).readyEmail).toBe(false);
    const rows = await prisma.readyEmail.findMany({ where: { generationId: { in: [notAsked.id, deleted.id, unasked.id, inferred.id] } } });
    expect(rows.map((r) => [r.generationId, r.outcome])).toEqual([[inferred.id, "SUCCESS"]]);
  });

  test("only if held: a row holding another task (or none) is left alone and nothing is recorded", async () => {
    const generation = await pendingGeneration();
    const held = { duplicateOf: "SUCCESS", onlyIfHeld: true } as const;
    const delivery = { source: "CALLBACK", reportedState: "SUCCESS", ifMatched: "APPLIED", ifNotMatched: held } as const;
    expect(await writeOutcome(terminalWrite({ id: generation.id, taskId: "task_someone_else" }, { delivery }))).toEqual({ row: null, delivery: null, settled: null, readyEmail: false, releasedBefore: null });
    expect(await writeOutcome(terminalWrite({ id: `ow-missing-${randomUUID()}`, taskId: "task_x" }, { delivery }))).toEqual({ row: null, delivery: null, settled: null, readyEmail: false, releasedBefore: null });
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } })).toMatchObject({ state: "PENDING", completedAt: null });
    expect(await deliveriesOf(generation.id)).toEqual([]);
  });

  test("heard: lastHeardAt moves and STILL_PENDING is recorded; after the outcome, LATE_IGNORED", async () => {
    const generation = await pendingGeneration();
    const heard = (now: Date) =>
      writeOutcome({
        generationId: generation.id,
        taskId: generation.taskId,
        change: { kind: "heard" },
        now,
        delivery: { source: "POLL", reportedState: "PENDING", ifMatched: "STILL_PENDING", ifNotMatched: { duplicateOf: null, onlyIfHeld: false } },
      });
    const first = new Date(Date.now() - 5000);
    expect(await heard(first)).toMatchObject({ row: { state: "PENDING" }, delivery: { outcome: "STILL_PENDING" } });
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } })).toMatchObject({ state: "PENDING", lastHeardAt: first, completedAt: null });
    await writeOutcome(terminalWrite(generation));
    expect(await heard(new Date())).toMatchObject({ row: null, delivery: { outcome: "LATE_IGNORED" } });
  });

  test("createdAfter: a row created before it does not match; 'skip' records nothing", async () => {
    const generation = await pendingGeneration({ createdAt: new Date(Date.now() - 60_000) });
    const write = (createdAfter: Date) =>
      writeOutcome({
        generationId: generation.id,
        taskId: generation.taskId,
        change: { kind: "heard" },
        createdAfter,
        now: new Date(),
        delivery: { source: "CALLBACK", reportedState: "SUCCESS", detail: "no URLs yet", ifMatched: "STILL_PENDING", ifNotMatched: "skip" },
      });
    expect(await write(new Date(Date.now() - 30_000))).toEqual({ row: null, delivery: null, settled: null, readyEmail: false, releasedBefore: null });
    expect(await write(new Date(Date.now() - 90_000))).toMatchObject({ row: { state: "PENDING" }, delivery: { outcome: "STILL_PENDING" } });
    expect((await deliveriesOf(generation.id)).map((d) => d.detail)).toEqual(["no URLs yet"]);
  });

  test("a FAILURE the app inferred is replaced by a real report; any other FAILURE is not", async () => {
    const inferred = await pendingGeneration({ state: "FAILURE", errorCode: "task_not_found" });
    expect((await writeOutcome(terminalWrite(inferred))).delivery?.outcome).toBe("APPLIED");
    const real = await pendingGeneration({ state: "FAILURE", errorCode: "content_policy" });
    expect((await writeOutcome(terminalWrite(real))).delivery?.outcome).toBe("LATE_IGNORED");
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: real.id } })).toMatchObject({ state: "FAILURE", creditsConsumed: null });
  });

  test("a long detail is cut to 300 characters", async () => {
    const generation = await pendingGeneration();
    await writeOutcome(terminalWrite(generation, { delivery: { source: "CALLBACK", reportedState: "SUCCESS", detail: "d".repeat(5000), ifMatched: "APPLIED", ifNotMatched: "skip" } }));
    expect((await deliveriesOf(generation.id))[0]!.detail).toHaveLength(300);
  });

  test("both or neither: when the delivery cannot be stored, the transition is not stored either", async () => {
    const generation = await pendingGeneration();
    const refused = `refused-${randomUUID()}`;
    const dropTrigger = await refuseDeliveriesWithDetail(refused);
    try {
      const write = terminalWrite(generation, { delivery: { source: "CALLBACK", reportedState: "SUCCESS", detail: refused, ifMatched: "APPLIED", ifNotMatched: "skip" } });
      // Another write at the same moment (on SQLite, in the same group commit) is not failed by this one.
      const bystander = await pendingGeneration();
      const [refusal, other] = await Promise.allSettled([writeOutcome(write), writeOutcome(terminalWrite(bystander))]);
      expect(refusal).toMatchObject({ status: "rejected", reason: expect.objectContaining({ message: expect.stringMatching(/refused/) }) });
      expect(other).toMatchObject({ status: "fulfilled", value: { delivery: { outcome: "APPLIED" } } });
    } finally {
      await dropTrigger();
    }
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } })).toMatchObject({ state: "PENDING", creditsConsumed: null, completedAt: null });
    expect(await deliveriesOf(generation.id)).toEqual([]);
    // The same report, retried once the fault is gone, applies once.
    expect((await writeOutcome(terminalWrite(generation))).delivery?.outcome).toBe("APPLIED");
  });
});

/** A PENDING generation holding `credits`, as a submission leaves it. */
async function heldGeneration(credits: number, ownerId = "outcome-owner") {
  const generation = await pendingGeneration({ ownerId });
  await prisma.creditEntry.create({ data: { ownerId, kind: "HOLD", amount: -credits, idempotencyKey: `hold:${generation.id}`, generationId: generation.id } });
  return generation;
}

const capture = (id: string, charge: number | null) =>
  ({ kind: "CAPTURE", key: `capture:${id}`, holdKey: `hold:${id}`, charge, note: "charged", overNote: "over the hold", collectNote: "a finished video's unused hold" }) as const;
const release = (id: string) => ({ kind: "RELEASE", key: `release:${id}`, holdKey: `hold:${id}`, charge: null, note: "failed", overNote: "", collectNote: "a released hold" }) as const;
const failure = { kind: "terminal", state: "FAILURE", resultUrls: "[]", creditsConsumed: 0, errorCode: "x", errorMessage: "y", gatewayMetadata: null, resultUrlsDropped: 0 } as const;
const settlementsOf = async (generationId: string) =>
  (await prisma.creditEntry.findMany({ where: { generationId, kind: { in: ["CAPTURE", "RELEASE"] } } })).map((e) => [e.kind, e.amount, e.idempotencyKey, e.settles, e.note]);

describe(`the outcome write settles the credit hold (${testEngine()})`, () => {
  test("SUCCESS captures: what the hold did not cost comes back, once; a later FAILURE releases nothing", async () => {
    const g = await heldGeneration(11);
    const written = await writeOutcome(terminalWrite(g, { settlement: capture(g.id, 8) }));
    expect(written.settled).toEqual({ kind: "CAPTURE", amount: 3, overHold: false, collected: 0 });
    const again = await writeOutcome(terminalWrite(g, { settlement: capture(g.id, 2) }));
    expect(again).toMatchObject({ row: null, delivery: { outcome: "DUPLICATE" }, settled: null });
    const late = await writeOutcome(terminalWrite(g, { change: failure, settlement: release(g.id) }));
    expect(late).toMatchObject({ row: null, settled: null });
    expect(await settlementsOf(g.id)).toEqual([["CAPTURE", 3, `capture:${g.id}`, g.id, "charged"]]);
    // Read back by Prisma, as the ledger's history reads it.
    expect((await prisma.creditEntry.findUniqueOrThrow({ where: { idempotencyKey: `capture:${g.id}` } })).ownerId).toBe("outcome-owner");
  });

  test.each([
    ["the gateway did not say: the hold is the cost", null, 0, false, "charged"],
    ["exactly the hold", 11, 0, false, "charged"],
    ["above the hold: captured at the hold, flagged", 30, 0, true, "over the hold"],
    ["free", 0, 11, false, "charged"],
  ])("capture, %s", async (_name, charge, amount, overHold, note) => {
    const g = await heldGeneration(11);
    expect((await writeOutcome(terminalWrite(g, { settlement: capture(g.id, charge) }))).settled).toEqual({ kind: "CAPTURE", amount, overHold, collected: 0 });
    expect(await settlementsOf(g.id)).toEqual([["CAPTURE", amount, `capture:${g.id}`, g.id, note]]);
  });

  test("FAILURE releases the whole hold; a SUCCESS after it captures nothing", async () => {
    const g = await heldGeneration(7);
    expect((await writeOutcome(terminalWrite(g, { change: failure, settlement: release(g.id) }))).settled).toEqual({ kind: "RELEASE", amount: 7, overHold: false, collected: 0 });
    expect((await writeOutcome(terminalWrite(g, { settlement: capture(g.id, 1) }))).settled).toBeNull();
    expect(await settlementsOf(g.id)).toEqual([["RELEASE", 7, `release:${g.id}`, g.id, "failed"]]);
  });

  test("a hold given back while the row stays open (a task flagged lost) is never captured: the SUCCESS that follows moves the row and settles nothing", async () => {
    const g = await heldGeneration(7);
    // What the store's releaseHoldOf writes when a task is flagged lost.
    await prisma.creditEntry.create({ data: { ownerId: "outcome-owner", kind: "RELEASE", amount: 7, idempotencyKey: `release:${g.id}`, generationId: g.id, settles: g.id, note: "lost" } });
    const written = await writeOutcome(terminalWrite(g, { settlement: capture(g.id, 1) }));
    expect(written.row?.state).toBe("SUCCESS");
    expect(written.settled).toBeNull();
    expect(await settlementsOf(g.id)).toEqual([["RELEASE", 7, `release:${g.id}`, g.id, "lost"]]);
  });

  test("a generation without a hold (made before credits) is written as before, with no credit row", async () => {
    const g = await pendingGeneration();
    const written = await writeOutcome(terminalWrite(g, { settlement: capture(g.id, 5) }));
    expect(written.row?.state).toBe("SUCCESS");
    expect(written.settled).toBeNull();
    expect(await settlementsOf(g.id)).toEqual([]);
  });

  test("concurrent SUCCESS and FAILURE reports of many generations (written together): one settlement each, matching its state", async () => {
    const generations = await Promise.all(Array.from({ length: 12 }, () => heldGeneration(5)));
    await Promise.all(
      generations.flatMap((g) => [
        writeOutcome(terminalWrite(g, { settlement: capture(g.id, 4) })),
        writeOutcome(terminalWrite(g, { change: failure, settlement: release(g.id) })),
        writeOutcome(terminalWrite(g, { settlement: capture(g.id, 4) })),
      ]),
    );
    for (const g of generations) {
      const { state } = await prisma.generation.findUniqueOrThrow({ where: { id: g.id } });
      expect(await settlementsOf(g.id)).toEqual([state === "SUCCESS" ? ["CAPTURE", 1, `capture:${g.id}`, g.id, "charged"] : ["RELEASE", 5, `release:${g.id}`, g.id, "failed"]]);
    }
  });

  test("what a settlement gives back pays what the owner owes first, oldest purchase first, never past what is owed, with 12 outcomes at once", async () => {
    const ownerId = `owes-${randomUUID()}`;
    const owing = (id: string, creditsOwed: number, createdAt: Date) =>
      prisma.purchase.create({ data: { checkoutSessionId: id, ownerId, packId: "starter", credits: 100, amountTotal: 1000, currency: "usd", status: "REFUNDED", creditsOwed, createdAt } });
    const older = `cs_owed_a_${randomUUID()}`;
    const newer = `cs_owed_b_${randomUUID()}`;
    await owing(older, 20, new Date(Date.now() - 60_000));
    await owing(newer, 9, new Date());
    const generations = await Promise.all(Array.from({ length: 12 }, () => heldGeneration(5, ownerId)));
    const written = await Promise.all(
      generations.flatMap((g, i) => [
        writeOutcome(terminalWrite(g, i % 3 === 0 ? { settlement: capture(g.id, 4) } : { change: failure, settlement: release(g.id) })),
        writeOutcome(terminalWrite(g, { change: failure, settlement: release(g.id) })),
      ]),
    );
    const settledBack = written.reduce((sum, w) => sum + (w.settled?.amount ?? 0), 0);
    const collected = written.reduce((sum, w) => sum + (w.settled?.collected ?? 0), 0);
    expect(collected).toBe(29);
    const purchases = await prisma.purchase.findMany({ where: { ownerId }, orderBy: { createdAt: "asc" } });
    expect(purchases.map((p) => [p.checkoutSessionId, p.creditsCollected])).toEqual([
      [older, 20],
      [newer, 9],
    ]);
    const rows = await prisma.creditEntry.findMany({ where: { ownerId, kind: "COLLECT" } });
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(-29);
    for (const row of rows) {
      const settlement = await prisma.creditEntry.findFirstOrThrow({ where: { settles: row.generationId } });
      expect(row.idempotencyKey).toBe(`collect:${settlement.idempotencyKey}:${row.checkoutSessionId}`);
      expect(-row.amount).toBeLessThanOrEqual(settlement.amount);
    }
    // The balance: what the holds took, what came back, less what paid the debt; never below what the holds left.
    const balance = Number((await prisma.creditEntry.aggregate({ where: { ownerId }, _sum: { amount: true } }))._sum.amount);
    expect(balance).toBe(-12 * 5 + settledBack - 29);
  });

  test("atomic: when the delivery cannot be stored, neither the transition nor the capture is", async () => {
    const g = await heldGeneration(11);
    const restore = await refuseDeliveriesWithDetail("refuse-settlement");
    try {
      await expect(writeOutcome(terminalWrite(g, { settlement: capture(g.id, 8), delivery: { source: "CALLBACK", reportedState: "SUCCESS", detail: "refuse-settlement", ifMatched: "APPLIED", ifNotMatched: "skip" } }))).rejects.toThrow();
    } finally {
      await restore();
    }
    expect((await prisma.generation.findUniqueOrThrow({ where: { id: g.id } })).state).toBe("PENDING");
    expect(await settlementsOf(g.id)).toEqual([]);
  });
});

/** A trigger (from a connection of the test's own) that makes the database refuse a delivery insert carrying `detail`. */
async function refuseDeliveriesWithDetail(detail: string): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL!;
  const name = `refuse_${detail.replace(/\W/g, "_")}`;
  if (testEngine() === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const run = async (sql: string) => {
      await client.query(sql);
    };
    await run(`CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN IF NEW."detail" = '${detail}' THEN RAISE EXCEPTION 'delivery refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await run(`CREATE TRIGGER ${name} BEFORE INSERT ON "Delivery" FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    return async () => {
      await run(`DROP TRIGGER ${name} ON "Delivery"; DROP FUNCTION ${name}()`);
      await client.end();
    };
  }
  const client = createClient({ url });
  await client.execute(`CREATE TRIGGER ${name} BEFORE INSERT ON "Delivery" WHEN NEW."detail" = '${detail}' BEGIN SELECT RAISE(ABORT, 'delivery refused'); END`);
  return async () => {
    await client.execute(`DROP TRIGGER ${name}`);
    client.close();
  };
}
