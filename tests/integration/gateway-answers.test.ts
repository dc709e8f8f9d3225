// Answers the simulator never gives, from a stub gateway on this machine's
// outward address (so, as with a remote gateway and a local app, callbacks are
// off and polling carries every task): status answers without a taskId, HTML
// 404s from a proxy, the gateway's own 404s for hours, Retry-After far ahead.
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeEach, describe, expect, test, vi } from "vitest";
import { startApp, waitFor } from "../support/app";
import { readGeneration, submitPrompt, type GenerationBody } from "../support/generations";

type Answer = { status: number; body: string; headers?: Record<string, string>; delayMs?: number };
const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({ status, body: JSON.stringify(body), headers: { "Content-Type": "application/json", ...headers } });

let submitAnswer: () => Answer;
let statusAnswer: (taskId: string) => Answer;
let taskCount = 0;

const stub = http.createServer(async (req, res) => {
  req.resume();
  await new Promise((resolve) => req.on("end", resolve));
  const url = new URL(req.url ?? "/", "http://stub");
  const taskId = url.pathname.match(/^\/api\/generate\/(.+)$/)?.[1];
  const answer = req.method === "POST" && url.pathname === "/api/generate" ? submitAnswer() : taskId ? statusAnswer(taskId) : json(404, { code: 404, msg: "not_found" });
  if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
  res.writeHead(answer.status, answer.headers).end(answer.body);
});
await new Promise<void>((resolve) => stub.listen(0, "0.0.0.0", resolve));
const outward = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal)?.address;
if (!outward) throw new Error("no non-loopback IPv4 address to reach the stub gateway on");
const gatewayUrl = `http://${outward}:${(stub.address() as AddressInfo).port}`;

const app = await startApp({
  env: { GATEWAY_BASE_URL: gatewayUrl, GATEWAY_API_KEY: "stub-gateway-key", WEBHOOK_SECRET: "stub-webhook-secret-0123456789-abcdefgh", POLL_STALE_MS: "1000" },
});
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { refreshStaleGenerations, MAX_BACKOFF_MS } = await import("@/lib/generations/refresh");
const { reconcile } = await import("@/lib/generations/reconcile");

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => stub.close(resolve));
});

const success = { state: "SUCCESS", resultUrls: ["https://cdn.example/clip.mp4"], creditsConsumed: 0.2816 };
/** What submitPrompt's default (alpha 480p, 2 s) holds: 4.224 credits, rounded up. */
const HOLD_2S = 5;
beforeEach(() => {
  submitAnswer = () => json(200, { code: 200, msg: "success", data: { taskId: `task_stub_${++taskCount}` } });
  statusAnswer = (taskId) => json(200, { code: 200, data: { taskId, state: "PENDING" } });
});

async function pendingTask(label: string) {
  const { status, body } = await submitPrompt(app, `${label} ${Math.random()}`);
  expect(status).toBe(201);
  return { id: body.id as string, taskId: body.taskId as string };
}
/** A reader or the cron, once the task has gone unheard: one poll (the lease cleared so each call polls). */
async function poll(id: string) {
  await prisma.generation.update({ where: { id }, data: { lastHeardAt: new Date(0), pollLeaseUntil: null } });
  expect(await refreshStaleGenerations({ ids: [id] })).toBe(1);
  return prisma.generation.findUniqueOrThrow({ where: { id } });
}
const elevenMinutesOld = (id: string) => prisma.generation.update({ where: { id }, data: { createdAt: new Date(Date.now() - 11 * 60_000) } });

test("callbacks are off here: a remote gateway cannot reach this app", async () => {
  const { id } = await pendingTask("setup");
  expect(await readGeneration(app, id)).toMatchObject({ callbackEnabled: false });
});

describe("status answers (spec §4: at least `state`)", () => {
  test("an answer without taskId completes the task", async () => {
    const { id } = await pendingTask("no-task-id");
    statusAnswer = () => json(200, success);
    expect(await poll(id)).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.2816, resultUrls: JSON.stringify(success.resultUrls) });
  });

  test("an answer carrying a field 30,000 arrays deep completes the task and charges it; the field is dropped", async () => {
    const { id, taskId } = await pendingTask("deep");
    const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
    statusAnswer = () => ({ status: 200, body: `{"code":200,"data":{"taskId":"${taskId}","state":"SUCCESS","resultUrls":["https://cdn.example/clip.mp4"],"creditsConsumed":0.2816,"progress":100,"trace":${deep}}}`, headers: { "Content-Type": "application/json" } });
    expect(await poll(id)).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.2816, resultUrls: JSON.stringify(success.resultUrls) });
    const shown = (await readGeneration(app, id)) as GenerationBody & { gatewayMetadata?: Record<string, unknown> | null };
    expect(shown.gatewayMetadata).toEqual({ progress: 100 });
  });

  test("an answer naming another task changes nothing", async () => {
    const { id } = await pendingTask("other-task");
    statusAnswer = () => json(200, { ...success, taskId: "task_someone_else" });
    expect(await poll(id)).toMatchObject({ state: "PENDING", creditsConsumed: null, pollFailures: 1 });
    const [delivery] = await prisma.delivery.findMany({ where: { generationId: id } });
    expect(delivery).toMatchObject({ outcome: "ERROR", detail: expect.stringMatching(/^bad_response/) });
  });
});

describe("404s never invent a final FAILURE", () => {
  test("HTML 404s (a proxy, a wrong base path) are an outage, not 'no such task'", async () => {
    const { id } = await pendingTask("html-404");
    await elevenMinutesOld(id);
    statusAnswer = () => ({ status: 404, body: "<html><body>404 Not Found</body></html>", headers: { "Content-Type": "text/html" } });
    for (let i = 0; i < 4; i++) await poll(id);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ state: "PENDING", creditsConsumed: null, pollNotFound: 0, notFoundSince: null, pollFailures: 4 });
  });

  test("the gateway's own 404s flag the task, for hours, and the real SUCCESS that follows is applied and charged", async () => {
    const { id, taskId } = await pendingTask("json-404");
    await elevenMinutesOld(id);
    statusAnswer = (asked) => json(404, { code: "task_not_found", message: `No task ${asked}.` });
    for (let i = 0; i < 4; i++) await poll(id);
    const flagged = await prisma.generation.findUniqueOrThrow({ where: { id } });
    expect(flagged).toMatchObject({ state: "PENDING", creditsConsumed: null, errorCode: null, pollNotFound: 4 });
    expect(flagged.notFoundSince).not.toBeNull();
    // A long backoff, not seconds: the fourth wait is already 16 × the stale interval.
    expect(flagged.pollLeaseUntil!.getTime() - Date.now()).toBeGreaterThan(10_000);
    expect(await readGeneration(app, id)).toMatchObject({ state: "PENDING", notFoundSince: expect.any(String), lost: false });

    const ledger = () => prisma.creditEntry.findMany({ where: { generationId: id }, orderBy: { id: "asc" } }).then((rows) => rows.map((e) => [e.kind, e.amount]));
    expect(await ledger()).toEqual([["HOLD", -HOLD_2S]]);

    // Hours later: flagged lost for the UI, still PENDING, still polled; its hold is given back, once.
    const warn = vi.spyOn(console, "warn");
    try {
      await prisma.generation.update({ where: { id }, data: { notFoundSince: new Date(Date.now() - env.TASK_LOST_AFTER_MS - 60_000) } });
      expect(await poll(id)).toMatchObject({ state: "PENDING" });
      expect(await poll(id)).toMatchObject({ state: "PENDING" });
      expect(await readGeneration(app, id)).toMatchObject({ state: "PENDING", lost: true, creditsConsumed: null });
      expect(await ledger()).toEqual([["HOLD", -HOLD_2S], ["RELEASE", HOLD_2S]]);
      expect(warn.mock.calls.flat().filter((line) => String(line).includes(`generation ${id}: the gateway has not known its task`))).toHaveLength(1);

      // Then the gateway reports the real outcome: applied, the gateway's figure shown, and free to the user (logged for the operator).
      statusAnswer = () => json(200, { taskId, ...success });
      expect(await poll(id)).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.2816, errorCode: null, pollNotFound: 0, notFoundSince: null });
      expect(await readGeneration(app, id)).toMatchObject({ state: "SUCCESS", lost: false, notFoundSince: null });
      expect(await ledger()).toEqual([["HOLD", -HOLD_2S], ["RELEASE", HOLD_2S]]);
      expect(warn.mock.calls.flat().some((line) => String(line).includes(`generation ${id}: a task whose hold of ${HOLD_2S} credits had been given back`))).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });

  test("a FAILURE an older version inferred from 404s gives way to the gateway's real report", async () => {
    const { id, taskId } = await pendingTask("inferred");
    await prisma.generation.update({ where: { id }, data: { state: "FAILURE", creditsConsumed: 0, errorCode: "task_not_found", completedAt: new Date() } });
    const { applyTaskSnapshot } = await import("@/lib/generations/apply-task-snapshot");
    const real = { taskId, state: "SUCCESS" as const, resultUrls: success.resultUrls, creditsConsumed: 0.2816, failCode: null, failMessage: null, metadata: {} };
    expect(await applyTaskSnapshot({ generationId: id, snapshot: real, source: "CALLBACK" })).toMatchObject({ outcome: "APPLIED" });
    expect(await prisma.generation.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.2816, errorCode: null });
  });
});

describe("Retry-After is honoured up to the backoff cap", () => {
  test.each([
    ["an hour in seconds", "3600"],
    ["an HTTP date years ahead", new Date(Date.now() + 3 * 365 * 86_400_000).toUTCString()],
  ])("a 429 with Retry-After %s parks the task at most MAX_BACKOFF_MS", async (_name, retryAfter) => {
    const { id } = await pendingTask("retry-after");
    statusAnswer = () => json(429, { code: 429, msg: "slow down" }, { "Retry-After": retryAfter });
    const row = await poll(id);
    const wait = row.pollLeaseUntil!.getTime() - Date.now();
    expect(wait).toBeGreaterThan(MAX_BACKOFF_MS - 10_000);
    expect(wait).toBeLessThanOrEqual(MAX_BACKOFF_MS);
  });
});

describe("with callbacks off, every stored flag and message says so", () => {
  test("a refused submission is stored with callbacks off", async () => {
    submitAnswer = () => json(402, { code: 402, msg: "insufficient credits" });
    const { status, body } = await submitPrompt(app, "refused");
    // The gateway's 402 is the operator's balance: the app answers 503 (the visitor's own credits answer 402).
    expect(status).toBe(503);
    expect(await readGeneration(app, (body.generation as { id: string }).id)).toMatchObject({ state: "SUBMIT_FAILED", callbackEnabled: false });
  });

  test("a submission still with the gateway is stored with callbacks off from the start", async () => {
    submitAnswer = () => ({ ...json(200, { taskId: `task_stub_${++taskCount}` }), delayMs: 800 });
    const submitting = submitPrompt(app, `in flight ${Math.random()}`);
    const row = await waitFor(() => prisma.generation.findFirst({ where: { state: "SUBMITTING", prompt: { startsWith: "in flight" } } }));
    expect(row.callbackEnabled).toBe(false);
    expect((await submitting).status).toBe(201);
  });

  test("the cron's abandoned-submission message promises no callback", async () => {
    const abandoned = await prisma.generation.create({
      data: { ownerId: "someone", model: "alpha-2.5-text-to-video-480p", prompt: "abandoned", callbackEnabled: false, createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    await reconcile();
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: abandoned.id } });
    expect(row).toMatchObject({ state: "SUBMIT_FAILED", creditsConsumed: 0, errorCode: "submit_interrupted" });
    expect(row.errorMessage).toMatch(/callbacks are off/);
    expect(row.errorMessage).not.toMatch(/when it calls back/);
  });
});
