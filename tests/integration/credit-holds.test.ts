// The kit's credits through real parts: a submission holds its estimate in
// the same transaction as its row, before the gateway is asked; the single
// writer captures or releases it in its one atomic write, so duplicates,
// reordered reports and races still settle each generation once. A small
// welcome grant here, so that running out is a few submissions away.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { callAction } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";
import { SseReader } from "../support/sse-reader";

const WELCOME = 50;
const app = await startApp({ env: { CREDITS_WELCOME_GRANT: String(WELCOME) } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");
const { applyTaskSnapshot } = await import("@/lib/generations/apply-task-snapshot");

afterAll(() => app.close());
beforeAll(() => app.simulator.reset(100));

type Visitor = ReturnType<typeof app.visitor>;
// 480p at 0.1408 USD/s, markup 1.5, a credit $0.10: 2 s holds 5 credits (4.224), 10 s holds 22 (21.12).
const HOLD_2S = 5;
const HOLD_10S = 22;

async function submit(visitor: Visitor, prompt: string, duration = 2) {
  const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration } } });
  return { status: response.status, body: (await response.json()) as { id: string; state: string; error?: { code: string; message: string } } };
}

async function balance(visitor: Visitor) {
  const response = await visitor("/api/credits");
  expect(response.status).toBe(200);
  return (await response.json()) as { credits: number; held: number };
}

const ledgerOf = async (ownerId: string) =>
  (await prisma.creditEntry.findMany({ where: { ownerId }, orderBy: { id: "asc" } })).map((e) => [e.kind, e.amount, e.generationId]);

const terminal = (id: string) =>
  waitFor(async () => {
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    return row.state === "PENDING" || row.state === "SUBMITTING" ? null : row;
  });

/** A PENDING generation whose callbacks the simulator will not send: the test reports its outcome. */
async function quietGeneration(visitor: Visitor, label: string, duration = 2) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { status, body } = await submit(visitor, `quiet harbour ${marker}`, duration);
  expect(status).toBe(201);
  const row = await prisma.generation.findUniqueOrThrow({ where: { id: body.id } });
  expect(row.state).toBe("PENDING");
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  return { id: row.id, taskId: row.taskId!, token: callbackTokenFor(row.id, env.WEBHOOK_SECRET), task: task! };
}

const deliver = (token: string, body: unknown) =>
  app.fetch(`/api/webhooks/gateway?token=${encodeURIComponent(token)}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("holds, captures and releases", () => {
  test("a new visitor sees the welcome grant; a submission holds its estimate; SUCCESS captures what it cost", async () => {
    const visitor = app.visitor();
    expect(await balance(visitor)).toEqual({ credits: WELCOME, held: 0 });
    const { status, body } = await submit(visitor, `a lighthouse ${uniqueMarker("ok")}`);
    expect(status).toBe(201);
    // Held from the insert on: the answer to the submission already counts it.
    const right = await balance(visitor);
    expect(right.credits + right.held).toBe(WELCOME);
    expect(right.credits).toBe(WELCOME - HOLD_2S);

    expect(await terminal(body.id)).toMatchObject({ state: "SUCCESS" });
    await waitFor(async () => (await balance(visitor)).held === 0);
    const ownerId = await visitor.ownerId();
    // The simulator charges 0.2816 for 2 s: 4.224 credits, rounded up to the hold.
    expect(await ledgerOf(ownerId)).toEqual([
      ["GRANT", WELCOME, null],
      ["HOLD", -HOLD_2S, body.id],
      ["CAPTURE", 0, body.id],
    ]);
    expect(await balance(visitor)).toEqual({ credits: WELCOME - HOLD_2S, held: 0 });
  });

  test("a gateway figure below the estimate gives the rest back; one above is captured at the hold and logged", async () => {
    const visitor = app.visitor();
    const cheap = await quietGeneration(visitor, "cheap");
    // 0.1 USD × 1.5 ÷ 0.1 = 1.5 → 2 credits of the 5 held.
    expect((await deliver(cheap.token, { ...cheap.task, creditsConsumed: 0.1 })).status).toBe(200);
    const dear = await quietGeneration(visitor, "dear");
    expect((await deliver(dear.token, { ...dear.task, creditsConsumed: 5 })).status).toBe(200);

    const ownerId = await visitor.ownerId();
    const rows = await prisma.creditEntry.findMany({ where: { ownerId, kind: "CAPTURE" }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.generationId, r.amount])).toEqual([
      [cheap.id, HOLD_2S - 2],
      [dear.id, 0],
    ]);
    expect(rows[1]!.note).toMatch(/above the hold/);
    await waitFor(() => app.output().includes(dear.id));
    expect(app.output()).toMatch(new RegExp(`${dear.id}.*above the hold|above the hold.*${dear.id}`));
    expect(await balance(visitor)).toEqual({ credits: WELCOME - 2 - HOLD_2S, held: 0 });
  });

  test("five copies of a SUCCESS callback, then a FAILURE: one capture, no release", async () => {
    const visitor = app.visitor();
    const g = await quietGeneration(visitor, "dup");
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(g.token, g.task)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await deliver(g.token, { ...g.task, state: "FAILURE", resultUrls: [], failCode: "late", failMsg: "late" })).status).toBe(200);

    const ownerId = await visitor.ownerId();
    expect(await ledgerOf(ownerId)).toEqual([
      ["GRANT", WELCOME, null],
      ["HOLD", -HOLD_2S, g.id],
      ["CAPTURE", 0, g.id],
    ]);
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: g.id } })).toMatchObject({ state: "SUCCESS" });
  });

  test("SUCCESS and FAILURE racing by callback and by the writer directly: exactly one settlement, matching the state", async () => {
    const visitor = app.visitor();
    const g = await quietGeneration(visitor, "race");
    const failure = { ...g.task, state: "FAILURE" as const, resultUrls: [], failCode: "x", failMsg: "y" };
    await Promise.all([
      deliver(g.token, g.task),
      deliver(g.token, failure),
      deliver(g.token, g.task),
      applyTaskSnapshot({ generationId: g.id, source: "POLL", snapshot: { taskId: g.taskId, state: "FAILURE", resultUrls: [], creditsConsumed: 0, failCode: "x", failMessage: "y", metadata: {} } }),
      applyTaskSnapshot({ generationId: g.id, source: "POLL", snapshot: { taskId: g.taskId, state: "SUCCESS", resultUrls: g.task.resultUrls, creditsConsumed: 0.2816, failCode: null, failMessage: null, metadata: {} } }),
    ]);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: g.id } });
    const settlements = await prisma.creditEntry.findMany({ where: { generationId: g.id, kind: { in: ["CAPTURE", "RELEASE"] } } });
    expect(settlements).toHaveLength(1);
    expect(settlements[0]!.kind).toBe(row.state === "SUCCESS" ? "CAPTURE" : "RELEASE");
    expect(await balance(visitor)).toEqual({ credits: row.state === "SUCCESS" ? WELCOME - HOLD_2S : WELCOME, held: 0 });
  });

  test("a FAILURE releases the hold whole; its retry holds afresh and its success captures", async () => {
    const visitor = app.visitor();
    const marker = uniqueMarker("fail");
    await app.simulator.scenario({ match: marker, outcome: "failure", failCode: "content_policy", failMsg: "Prompt refused", times: 1 });
    const { body } = await submit(visitor, `x ${marker}`);
    expect(await terminal(body.id)).toMatchObject({ state: "FAILURE" });
    await waitFor(async () => (await balance(visitor)).held === 0);
    expect(await balance(visitor)).toEqual({ credits: WELCOME, held: 0 });

    // The card's Retry: a new generation, with a hold of its own.
    const retried = await callAction(visitor, "retryGenerationAction", [body.id]);
    expect(retried.text).toContain("Retrying: a new generation was submitted.");
    const retry = await prisma.generation.findFirstOrThrow({ where: { prompt: `x ${marker}`, id: { not: body.id } } });
    expect(await terminal(retry.id)).toMatchObject({ state: "SUCCESS" });
    await waitFor(async () => (await balance(visitor)).held === 0);
    expect(await ledgerOf(await visitor.ownerId())).toEqual([
      ["GRANT", WELCOME, null],
      ["HOLD", -HOLD_2S, body.id],
      ["RELEASE", HOLD_2S, body.id],
      ["HOLD", -HOLD_2S, retry.id],
      ["CAPTURE", 0, retry.id],
    ]);
  });

  test("a submission the gateway refuses (SUBMIT_FAILED) releases its hold", async () => {
    const visitor = app.visitor();
    const marker = uniqueMarker("refused");
    await app.simulator.scenario({ match: marker, submitStatus: 422, times: 1 });
    const { status, body } = await submit(visitor, `x ${marker}`);
    expect(status).toBe(422);
    const { generation } = body as unknown as { generation: { id: string; state: string } };
    expect(generation.state).toBe("SUBMIT_FAILED");
    expect(await balance(visitor)).toEqual({ credits: WELCOME, held: 0 });
    expect((await ledgerOf(await visitor.ownerId())).map(([kind, amount]) => [kind, amount])).toEqual([
      ["GRANT", WELCOME],
      ["HOLD", -HOLD_2S],
      ["RELEASE", HOLD_2S],
    ]);
  });
});

describe("a submission the gateway may have started anyway (no answer in time)", () => {
  /** A submit whose answer the simulator holds past GATEWAY_TIMEOUT_MS: the task exists, the app never hears of it. */
  async function timedOut(visitor: Visitor, label: string) {
    const marker = uniqueMarker(label);
    await app.simulator.scenario({ match: marker, submitAnswerDelayMs: env.GATEWAY_TIMEOUT_MS + 3_000, pendingMs: 600_000, callback: { mode: "drop" } });
    const { status, body } = await submit(visitor, `late answer ${marker}`);
    expect(status).toBe(503);
    const { generation } = body as unknown as { generation: { id: string } };
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: generation.id } })).toMatchObject({ state: "SUBMIT_FAILED", errorCode: "submit_timeout", taskId: null });
    return { id: generation.id, marker, token: callbackTokenFor(generation.id, env.WEBHOOK_SECRET) };
  }
  const cron = async () => {
    const response = await app.fetch("/api/cron/reconcile", { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as { releasedHolds: number };
  };

  test("the hold stays while its task may claim it; the task's callback adopts it and its SUCCESS captures, once", async () => {
    const visitor = app.visitor();
    const g = await timedOut(visitor, "adopted");
    // Honestly held: the gateway may be running it.
    expect(await balance(visitor)).toEqual({ credits: WELCOME - HOLD_2S, held: HOLD_2S });

    await app.simulator.settle(g.marker);
    const [task] = await app.simulator.tasks(g.marker);
    expect((await deliver(g.token, task)).status).toBe(200);
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: g.id } })).toMatchObject({ state: "SUCCESS", taskId: task!.taskId });
    // A duplicate of the callback and a cron run change nothing.
    expect((await deliver(g.token, task)).status).toBe(200);
    await cron();
    expect(await ledgerOf(await visitor.ownerId())).toEqual([
      ["GRANT", WELCOME, null],
      ["HOLD", -HOLD_2S, g.id],
      ["CAPTURE", 0, g.id],
    ]);
    expect(await balance(visitor)).toEqual({ credits: WELCOME - HOLD_2S, held: 0 });
  });

  test("no task claims it within TASK_LOST_AFTER_MS: the cron gives the hold back, once however often it runs", async () => {
    const visitor = app.visitor();
    const waiting = await timedOut(visitor, "unclaimed-recent");
    const g = await timedOut(visitor, "unclaimed");
    await prisma.generation.update({ where: { id: g.id }, data: { completedAt: new Date(Date.now() - env.TASK_LOST_AFTER_MS - 60_000) } });

    const runs = [await cron(), await cron()];
    expect(runs.map((r) => r.releasedHolds)).toEqual([1, 0]);
    expect(await ledgerOf(await visitor.ownerId())).toEqual([
      ["GRANT", WELCOME, null],
      ["HOLD", -HOLD_2S, waiting.id],
      ["HOLD", -HOLD_2S, g.id],
      ["RELEASE", HOLD_2S, g.id],
    ]);
    // The one still within the wait keeps its hold.
    expect(await balance(visitor)).toEqual({ credits: WELCOME - HOLD_2S, held: HOLD_2S });
    await waitFor(() => app.output().includes(`generation ${g.id}: no task claimed`));
  });

  test("the task claims it after the cron gave its hold back: SUCCESS is free, released on the live card, nothing captured, the operator told", async () => {
    const visitor = app.visitor();
    const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await visitor.cookieHeader() });
    try {
      await waitFor(() => stream.messages.some((m) => m.event === "ready"));
      const g = await timedOut(visitor, "released-then-done");
      await prisma.generation.update({ where: { id: g.id }, data: { completedAt: new Date(Date.now() - env.TASK_LOST_AFTER_MS - 60_000) } });
      await cron();
      expect(await balance(visitor)).toEqual({ credits: WELCOME, held: 0 });

      await app.simulator.settle(g.marker);
      const [task] = await app.simulator.tasks(g.marker);
      expect((await deliver(g.token, task)).status).toBe(200);
      const success = (await waitFor(() => stream.changes().find((c) => c.id === g.id && c.state === "SUCCESS"))) as { card?: { charge?: unknown } };
      expect(success.card?.charge).toEqual({ status: "released", credits: HOLD_2S });
      expect(await ledgerOf(await visitor.ownerId())).toEqual([
        ["GRANT", WELCOME, null],
        ["HOLD", -HOLD_2S, g.id],
        ["RELEASE", HOLD_2S, g.id],
      ]);
      expect(await balance(visitor)).toEqual({ credits: WELCOME, held: 0 });
      await waitFor(() => app.output().includes(`generation ${g.id}: a task whose hold of ${HOLD_2S} credits had been given back`));
    } finally {
      stream.close();
    }
  });
});

describe("running out", () => {
  test("past the balance: 402 insufficient_credits with the way to buy, no row, no gateway call", async () => {
    const visitor = app.visitor();
    const marker = uniqueMarker("broke");
    await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
    expect((await submit(visitor, `one ${marker}`, 10)).status).toBe(201);
    expect((await submit(visitor, `two ${marker}`, 10)).status).toBe(201);
    const rowsBefore = await prisma.generation.count({ where: { ownerId: await visitor.ownerId() } });

    const refused = await submit(visitor, `three ${marker}`, 10);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: "insufficient_credits" });
    expect(refused.body.error!.message).toContain("/credits");
    expect(refused.body.error!.message).toContain(`needs ${HOLD_10S} credits and you have ${WELCOME - 2 * HOLD_10S}`);
    expect(await prisma.generation.count({ where: { ownerId: await visitor.ownerId() } })).toBe(rowsBefore);
    expect((await app.simulator.tasks(marker)).map((t) => t.prompt)).toEqual([`one ${marker}`, `two ${marker}`]);
    // What is left still buys a shorter video.
    expect((await submit(visitor, `short ${marker}`, 2)).status).toBe(201);
    expect(await balance(visitor)).toEqual({ credits: WELCOME - 2 * HOLD_10S - HOLD_2S, held: 2 * HOLD_10S + HOLD_2S });
  });

  test("ten concurrent submissions against a balance that fits two: exactly two generations, never below zero", async () => {
    const visitor = app.visitor();
    await balance(visitor); // the welcome grant, and the cookie, before the race
    const marker = uniqueMarker("race");
    await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => submit(visitor, `${i} ${marker} ${randomUUID()}`, 10)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 402, 402, 402, 402, 402, 402, 402, 402]);
    const ownerId = await visitor.ownerId();
    expect(await prisma.generation.count({ where: { ownerId } })).toBe(2);
    expect(await app.simulator.tasks(marker)).toHaveLength(2);
    expect(await balance(visitor)).toEqual({ credits: WELCOME - 2 * HOLD_10S, held: 2 * HOLD_10S });
  });
});
