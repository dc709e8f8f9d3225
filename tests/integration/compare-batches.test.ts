// Comparisons through real parts (POST /api/batches, the simulator, the
// ledger): a batch holds the sum of its videos' estimates in one transaction,
// whole or not at all, once per idempotency key; each video then settles on
// its own, and a model the gateway refuses gives back its own share only.
// Credits come from the operator's grant here (no welcome grant), so each test
// knows its owner's balance exactly.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";

// A guest's cap of 4.3 of the gateway's credits (USD here): above five of the race's batches (4.224), so that credits refuse there.
const GUEST_CAP = 4.3;
const app = await startApp({ env: { CREDITS_WELCOME_GRANT: "0", SPEND_LIMIT_GUEST_CREDITS: String(GUEST_CAP), SPEND_LIMIT_ADDRESS_CREDITS: "0" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { adjustCredits } = await import("@/lib/credits/adjust");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

afterAll(() => app.close());
beforeAll(() => app.simulator.reset(1_000));

type Visitor = ReturnType<typeof app.visitor>;
// 0.1408 USD/s, markup 1.5, a credit $0.10: 2 s holds 5 credits (4.224), 4 s holds 9 (8.448).
const PAIR = [
  { model: "alpha-2.5-text-to-video-480p", input: { duration: 2 } },
  { model: "alpha-2.5-text-to-video", input: { duration: 4 } },
];
const HOLDS = { "alpha-2.5-text-to-video-480p": 5, "alpha-2.5-text-to-video": 9 } as Record<string, number>;
const PAIR_HOLD = 14;

type BatchAnswer = {
  id: string;
  videos: { id: string; model: string; state: string; error?: { code: string; message: string } }[];
  error?: { code: string; message: string; fields?: Record<string, string[]> };
};

async function submitBatch(visitor: Visitor, prompt: string, { videos = PAIR, key }: { videos?: unknown[]; key?: string } = {}) {
  const response = await visitor("/api/batches", { method: "POST", json: { prompt, videos }, headers: key ? { "Idempotency-Key": key } : {} });
  return { status: response.status, body: (await response.json()) as BatchAnswer };
}

/** A visitor with exactly `credits` (an operator's grant: no welcome grant in this file). */
async function fundedVisitor(credits: number) {
  const visitor = app.visitor();
  const ownerId = await visitor.ownerId();
  await adjustCredits({ ownerId, amount: credits, reason: "compare test" });
  return { visitor, ownerId };
}

/** Tasks of prompts holding this marker stay PENDING and send no callback: the test reports their outcomes. */
async function quiet(label: string) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  return marker;
}

const balanceOf = async (ownerId: string) => Number((await prisma.creditEntry.aggregate({ where: { ownerId }, _sum: { amount: true } }))._sum.amount ?? 0);

describe("one batch, paid as one", () => {
  test("ten batches racing for four batches' worth of credits: four whole batches held, six refused with nothing stored", async () => {
    // Enough for four batches and one more of the cheaper video alone: a partial fifth batch would fit.
    const { visitor, ownerId } = await fundedVisitor(4 * PAIR_HOLD + 5);
    const marker = await quiet("race");
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => submitBatch(visitor, `ten lanterns ${i} ${marker}`)));

    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 402, 402, 402, 402, 402, 402]);
    for (const refused of answers.filter((a) => a.status === 402)) {
      expect(refused.body.error).toMatchObject({ code: "insufficient_credits" });
      // Whatever the order, a refused batch found 5 left: 9 missing.
      expect(refused.body.error!.message).toContain("This comparison needs 14 credits and you have 5 credits: 9 credits missing");
    }
    const batches = await prisma.batch.findMany({ where: { ownerId }, include: { generations: true } });
    expect(batches).toHaveLength(4);
    const holds = await prisma.creditEntry.findMany({ where: { ownerId, kind: "HOLD" } });
    // Every batch whole: both its videos, each with its own hold, the two adding up to the batch's.
    for (const batch of batches) {
      expect(batch.generations.map((g) => g.model).sort()).toEqual(PAIR.map((v) => v.model).sort());
      const own = holds.filter((h) => batch.generations.some((g) => g.id === h.generationId));
      expect(own.map((h) => -h.amount).sort((a, b) => a - b)).toEqual([5, 9]);
    }
    expect(holds).toHaveLength(8);
    expect(await prisma.generation.count({ where: { ownerId } })).toBe(8);
    expect(await balanceOf(ownerId)).toBe(5);
    // Each video went to the gateway on its own.
    await waitFor(async () => (await prisma.generation.count({ where: { ownerId, state: "PENDING" } })) === 8, 60_000, "eight PENDING videos");
    expect(await app.simulator.tasks(marker)).toHaveLength(8);
  });

  test("the same batch submitted four times at once and again after: one batch, one hold per video", async () => {
    const { visitor, ownerId } = await fundedVisitor(100);
    const marker = await quiet("dup");
    const key = `compare-${randomUUID()}`;
    const prompt = `a double click ${marker}`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => submitBatch(visitor, prompt, { key })));
    // Each answer is the batch, or "still being sent" (409) while the first is with the gateway.
    const made = answers.filter((a) => a.status === 201);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(new Set(made.map((a) => a.body.id)).size).toBe(1);

    const again = await submitBatch(visitor, prompt, { key });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(made[0]!.body.id);
    expect(again.body.videos.map((v) => v.state)).toEqual(["PENDING", "PENDING"]);

    expect(await prisma.batch.count({ where: { ownerId } })).toBe(1);
    expect(await prisma.generation.count({ where: { ownerId } })).toBe(2);
    expect(await prisma.creditEntry.count({ where: { ownerId, kind: "HOLD" } })).toBe(2);
    expect(await balanceOf(ownerId)).toBe(100 - PAIR_HOLD);
    expect(await app.simulator.tasks(marker)).toHaveLength(2);

    // The same key with another request is refused, and makes nothing.
    const other = await submitBatch(visitor, `${prompt} again`, { key });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: "idempotency_key_reused" });
    expect(await prisma.batch.count({ where: { ownerId } })).toBe(1);
  });

  test("one model refused by the gateway at submit gives back its own share; the other goes on", async () => {
    const { visitor, ownerId } = await fundedVisitor(50);
    const marker = await quiet("refused");
    // The newest scenario wins: the first video to reach the gateway is refused (422), the other is quiet.
    await app.simulator.scenario({ match: marker, times: 1, submitStatus: 422 });
    const { status, body } = await submitBatch(visitor, `one refused ${marker}`);
    expect(status).toBe(201);

    const refused = body.videos.filter((v) => v.state === "SUBMIT_FAILED");
    const going = body.videos.filter((v) => v.state === "PENDING");
    expect(refused).toHaveLength(1);
    expect(going).toHaveLength(1);
    expect(refused[0]!.error).toMatchObject({ code: "invalid_input" });

    const ledger = await prisma.creditEntry.findMany({ where: { ownerId, kind: { in: ["HOLD", "RELEASE", "CAPTURE"] } } });
    const of = (id: string) => ledger.filter((e) => e.generationId === id).map((e) => [e.kind, e.amount]);
    expect(of(refused[0]!.id)).toEqual([
      ["HOLD", -HOLDS[refused[0]!.model]!],
      ["RELEASE", HOLDS[refused[0]!.model]!],
    ]);
    expect(of(going[0]!.id)).toEqual([["HOLD", -HOLDS[going[0]!.model]!]]);
    expect(await balanceOf(ownerId)).toBe(50 - HOLDS[going[0]!.model]!);

    // The batch still reads as two videos, one refused.
    const read = await visitor(`/api/batches/${body.id}`);
    expect(read.status).toBe(200);
    const batch = (await read.json()) as { generations: { id: string; state: string; charge: { status: string; credits: number } | null }[] };
    expect(batch.generations.map((g) => [g.id, g.state, g.charge])).toEqual(
      body.videos.map((v) => [v.id, v.state, { status: v.state === "PENDING" ? "held" : "released", credits: HOLDS[v.model] }]),
    );
  });

  test("a batch's videos captured and released one by one add up to the batch's hold", async () => {
    const { visitor, ownerId } = await fundedVisitor(30);
    const marker = await quiet("settle");
    const { status, body } = await submitBatch(visitor, `settled one by one ${marker}`);
    expect(status).toBe(201);
    await app.simulator.settle(marker);
    const tasks = await app.simulator.tasks(marker);
    const rows = await prisma.generation.findMany({ where: { batchId: body.id } });
    const [cheap, failed] = [rows.find((r) => r.model === PAIR[0]!.model)!, rows.find((r) => r.model === PAIR[1]!.model)!];
    const deliver = (row: (typeof rows)[number], payload: object) =>
      app.fetch(`/api/webhooks/gateway?token=${encodeURIComponent(callbackTokenFor(row.id, env.WEBHOOK_SECRET))}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...tasks.find((t) => t.taskId === row.taskId)!, ...payload }),
      });
    // 0.1 USD costs 1.5 credits, rounded up: 2 of the 5 held; the other fails and gives back its 9.
    expect((await deliver(cheap, { creditsConsumed: 0.1 })).status).toBe(200);
    expect(await balanceOf(ownerId)).toBe(30 - PAIR_HOLD + 3);
    expect((await deliver(failed, { state: "FAILURE", resultUrls: [], failCode: "x", failMsg: "no" })).status).toBe(200);
    // Duplicates settle nothing again.
    expect((await deliver(failed, { state: "FAILURE", resultUrls: [], failCode: "x", failMsg: "no" })).status).toBe(200);

    const entries = await prisma.creditEntry.findMany({ where: { generationId: { in: rows.map((r) => r.id) } } });
    const sum = (kind: string) => entries.filter((e) => e.kind === kind).reduce((s, e) => s + e.amount, 0);
    expect(sum("HOLD")).toBe(-PAIR_HOLD);
    expect(entries.filter((e) => e.kind !== "HOLD").map((e) => [e.generationId, e.kind, e.amount]).sort()).toEqual(
      [
        [cheap.id, "CAPTURE", 3],
        [failed.id, "RELEASE", 9],
      ].sort(),
    );
    // What was charged plus what came back is the batch's hold.
    const charged = 2;
    expect(sum("CAPTURE") + sum("RELEASE") + charged).toBe(PAIR_HOLD);
    expect(await balanceOf(ownerId)).toBe(30 - charged);
  });

  test("the spending cap counts a batch as its videos: a batch past the cap is refused whole, a single video that fits is not", async () => {
    const { visitor, ownerId } = await fundedVisitor(500);
    const marker = await quiet("cap");
    const tens = PAIR.map((v) => ({ ...v, input: { duration: 10 } }));
    // 2 × 1.408 = 2.816 of the 4.3 cap.
    expect((await submitBatch(visitor, `under the cap ${marker}`, { videos: tens })).status).toBe(201);
    // 2 × 0.9856 more (7 s each) would be 4.7872: refused whole, though one of them alone (3.8016) fits.
    const sevens = PAIR.map((v) => ({ ...v, input: { duration: 7 } }));
    const over = await submitBatch(visitor, `past the cap ${marker}`, { videos: sevens });
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: "spend_limit" });
    expect(await prisma.batch.count({ where: { ownerId } })).toBe(1);
    expect(await prisma.generation.count({ where: { ownerId } })).toBe(2);
    const single = await visitor("/api/generations", { method: "POST", json: { model: PAIR[0]!.model, input: { prompt: `one alone ${marker}`, duration: 7 } } });
    expect(single.status).toBe(201);
  });

  test("bad batches are refused with field errors and store nothing; another owner's batch is a 404, and so is their pick", async () => {
    const { visitor, ownerId } = await fundedVisitor(100);
    const one = await submitBatch(visitor, "lonely", { videos: PAIR.slice(0, 1) });
    expect(one.status).toBe(422);
    const twice = await submitBatch(visitor, "twice", { videos: [PAIR[0], PAIR[0]] });
    expect(twice.status).toBe(422);
    const bad = await submitBatch(visitor, "", { videos: [PAIR[0], { model: PAIR[1]!.model, input: { duration: 99 } }] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error?.fields ?? {}).sort()).toEqual(["prompt", "videos.1.duration"]);
    expect((await visitor("/api/batches", { method: "POST", body: "{not json", headers: { "Content-Type": "application/json" } })).status).toBe(400);
    expect(await prisma.batch.count({ where: { ownerId } })).toBe(0);

    const marker = await quiet("owner");
    const { body } = await submitBatch(visitor, `mine ${marker}`);
    const { visitor: stranger } = await fundedVisitor(50);
    expect((await stranger(`/api/batches/${body.id}`)).status).toBe(404);
    expect((await visitor(`/api/batches/${body.id}`)).status).toBe(200);

    // The pick: the owner's, one of the batch's own videos; a stranger's or another video's changes nothing.
    const pick = (who: Visitor, pickId: string | null) => who(`/api/batches/${body.id}`, { method: "PATCH", json: { pickId } });
    const strangers = await submitBatch(stranger, `theirs ${marker}`, { videos: PAIR });
    expect(strangers.status).toBe(201);
    expect((await pick(stranger, body.videos[0]!.id)).status).toBe(404);
    expect((await pick(visitor, strangers.body.videos[0]!.id)).status).toBe(404);
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: body.id } })).pickId).toBeNull();
    const picked = await pick(visitor, body.videos[1]!.id);
    expect(picked.status).toBe(200);
    expect(((await picked.json()) as { pickId: string }).pickId).toBe(body.videos[1]!.id);
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: body.id } })).pickId).toBe(body.videos[1]!.id);
    expect((await pick(visitor, null)).status).toBe(200);
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: body.id } })).pickId).toBeNull();
  });
});
