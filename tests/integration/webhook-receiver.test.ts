// POST /api/webhooks/gateway against a real database and simulator: what a
// gateway (or an attacker) can send, and what ends up stored.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { readGeneration, submitPrompt, type GenerationBody } from "../support/generations";
import { deliveryOutcomes, openChanges, publishedStates, spentCredits } from "../support/app-records";
import { uniqueMarker } from "../support/simulator-control";

// A spend cap far above anything here, so that /api/spend shows the app's ledger.
const app = await startApp({ env: { SPEND_LIMIT_CREDITS: "1000" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");
const { applyTaskSnapshot } = await import("@/lib/generations/apply-task-snapshot");

afterAll(() => app.close());
beforeAll(() => app.simulator.reset(100));

/** A PENDING generation whose callbacks the simulator will not send: the test delivers them. */
async function pendingGeneration(label: string) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { body } = await submitPrompt(app, `quiet harbour ${marker}`);
  const row = await prisma.generation.findUniqueOrThrow({ where: { id: body.id as string } });
  expect(row.state).toBe("PENDING");
  return { marker, id: row.id, taskId: row.taskId!, token: callbackTokenFor(row.id, env.WEBHOOK_SECRET) };
}

/** Settles the task at the gateway and returns the task as the gateway reports it. */
async function settled(marker: string) {
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  return task!;
}

function deliver(token: string | null, body: unknown, init: { contentType?: string; method?: string } = {}) {
  const path = token === null ? "/api/webhooks/gateway" : `/api/webhooks/gateway?token=${encodeURIComponent(token)}`;
  return app.fetch(path, {
    method: init.method ?? "POST",
    headers: { "Content-Type": init.contentType ?? "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const snapshot = async (id: string) => {
  const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
  const deliveries = await prisma.delivery.count({ where: { generationId: id } });
  return { row, deliveries };
};

describe("callback authentication and parsing", () => {
  test.each([
    ["no token", null],
    ["a forged token", "cm00000000000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a token signed with another secret", "PLACEHOLDER"],
  ])("%s → 401 and nothing written", async (_name, tokenOrNull) => {
    const g = await pendingGeneration("forged");
    const task = await settled(g.marker);
    const token = tokenOrNull === "PLACEHOLDER" ? callbackTokenFor(g.id, "not-the-webhook-secret-at-all") : tokenOrNull;
    const before = await snapshot(g.id);
    const response = await deliver(token, task);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: "unauthorized", message: "Invalid callback token." } });
    expect(await snapshot(g.id)).toEqual(before);
  });

  test("another generation's valid token cannot complete this task", async () => {
    const victim = await pendingGeneration("victim");
    const attacker = await pendingGeneration("attacker");
    const task = await settled(victim.marker);
    const response = await deliver(attacker.token, task);
    expect(response.status).toBe(401);
    const victimRow = await prisma.generation.findUniqueOrThrow({ where: { id: victim.id } });
    const attackerRow = await prisma.generation.findUniqueOrThrow({ where: { id: attacker.id } });
    expect([victimRow.state, attackerRow.state]).toEqual(["PENDING", "PENDING"]);
  });

  test("a valid token for a generation that does not exist → 404, nothing written", async () => {
    const response = await deliver(callbackTokenFor("cmnotarealgeneration0000", env.WEBHOOK_SECRET), { taskId: "task_x", state: "SUCCESS" });
    expect(response.status).toBe(404);
    expect(await prisma.delivery.count({ where: { OR: [{ taskId: "task_x" }, { generationId: "cmnotarealgeneration0000" }] } })).toBe(0);
  });

  test.each([
    ["not JSON", "{oops", 400, "bad_request"],
    ["a JSON array", "[1,2,3]", 400, "bad_request"],
  ])("a body that is %s is refused as malformed", async (_name, body, status, code) => {
    const g = await pendingGeneration("malformed");
    const response = await deliver(g.token, body);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    const { row } = await snapshot(g.id);
    expect(row.state).toBe("PENDING");
    const [delivery] = await prisma.delivery.findMany({ where: { generationId: g.id } });
    expect(delivery).toMatchObject({ source: "CALLBACK", outcome: "REJECTED" });
  });

  test("an oversized body → 413, nothing written", async () => {
    const g = await pendingGeneration("big");
    const task = await settled(g.marker);
    const before = await snapshot(g.id);
    const response = await deliver(g.token, { ...task, padding: "x".repeat(70 * 1024) });
    expect(response.status).toBe(413);
    expect(await snapshot(g.id)).toEqual(before);
  });

  test("a form-encoded body → 415, nothing written", async () => {
    const g = await pendingGeneration("form");
    const before = await snapshot(g.id);
    const response = await deliver(g.token, "taskId=x&state=SUCCESS", { contentType: "application/x-www-form-urlencoded" });
    expect(response.status).toBe(415);
    expect(await snapshot(g.id)).toEqual(before);
  });

  test.each(["GET", "PUT", "PATCH", "DELETE"])("%s → 405 with Allow: POST", async (method) => {
    const response = await app.fetch("/api/webhooks/gateway", { method });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe("applying outcomes", () => {
  test.each([
    ["flat task", (t: Record<string, unknown>) => t],
    ["{code, msg, data} envelope", (t: Record<string, unknown>) => ({ code: 200, msg: "success", data: t })],
    ["resultJson string", ({ resultUrls, ...t }: Record<string, unknown>) => ({ code: 200, data: { ...t, resultJson: JSON.stringify({ resultUrls }) } })],
  ])("a %s completes the task", async (_name, shape) => {
    const g = await pendingGeneration("shape");
    const task = await settled(g.marker);
    const response = await deliver(g.token, shape(task as unknown as Record<string, unknown>));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, outcome: "APPLIED" });
    const { row } = await snapshot(g.id);
    expect(row).toMatchObject({ state: "SUCCESS", creditsConsumed: task.creditsConsumed, resultUrls: JSON.stringify(task.resultUrls) });
  });

  test("a SUCCESS carrying a field 30,000 arrays deep (59 KB) completes and is charged; the field is dropped, the rest kept", async () => {
    const g = await pendingGeneration("deep");
    const task = await settled(g.marker);
    // Written as text: JSON.stringify itself cannot write it.
    const body = `${JSON.stringify({ ...task, progress: 100 }).slice(0, -1)},"trace":${"[".repeat(30_000)}${"]".repeat(30_000)}}`;
    expect(body.length).toBeLessThan(64 * 1024);
    const response = await deliver(g.token, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, outcome: "APPLIED" });
    expect((await snapshot(g.id)).row).toMatchObject({ state: "SUCCESS", creditsConsumed: task.creditsConsumed, resultUrls: JSON.stringify(task.resultUrls) });
    const shown = (await readGeneration(app, g.id)) as GenerationBody & { gatewayMetadata?: Record<string, unknown> | null };
    expect(shown.gatewayMetadata).toMatchObject({ progress: 100 });
    expect(shown.gatewayMetadata).not.toHaveProperty("trace");
  });

  test("an incomplete body is confirmed with the gateway before anything is written", async () => {
    const g = await pendingGeneration("hint");
    const task = await settled(g.marker);
    const response = await deliver(g.token, { event: "task.finished", id: g.taskId });
    expect(await response.json()).toEqual({ ok: true, outcome: "APPLIED" });
    const { row } = await snapshot(g.id);
    expect(row).toMatchObject({ state: "SUCCESS", creditsConsumed: task.creditsConsumed });
    const statusCalls = (await app.simulator.requests(g.marker)).filter((r) => r.method === "GET");
    expect(statusCalls).toHaveLength(1);
  });

  test("a body claiming SUCCESS for a task the gateway still runs changes nothing", async () => {
    const g = await pendingGeneration("lie");
    const response = await deliver(g.token, { taskId: g.taskId, state: "SUCCESS" });
    expect(await response.json()).toEqual({ ok: true, outcome: "STILL_PENDING" });
    expect((await snapshot(g.id)).row.state).toBe("PENDING");
  });

  test("SUCCESS without result URLs waits for them, until the task is overdue", async () => {
    const g = await pendingGeneration("nourls");
    const bare = { taskId: g.taskId, state: "SUCCESS" as const, resultUrls: [], creditsConsumed: 0.28, failCode: null, failMessage: null, metadata: {} };
    expect(await applyTaskSnapshot({ generationId: g.id, snapshot: bare, source: "POLL" })).toMatchObject({ outcome: "STILL_PENDING" });
    expect((await snapshot(g.id)).row).toMatchObject({ state: "PENDING", creditsConsumed: null });

    await prisma.generation.update({ where: { id: g.id }, data: { createdAt: new Date(Date.now() - env.PENDING_OVERDUE_MS - 1000) } });
    expect(await applyTaskSnapshot({ generationId: g.id, snapshot: bare, source: "POLL" })).toMatchObject({ outcome: "APPLIED" });
    expect((await snapshot(g.id)).row).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.28, resultUrls: "[]" });
  });

  test("20 concurrent identical callbacks make one transition, one published SUCCESS and one charge in the app's ledger", async () => {
    const stream = await openChanges(app);
    const spentBefore = await spentCredits(app.fetch);
    const g = await pendingGeneration("storm");
    const task = await settled(g.marker);
    const responses = await Promise.all(Array.from({ length: 20 }, () => deliver(g.token, task)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await deliveryOutcomes(prisma, g.id)).toEqual({ APPLIED: 1, DUPLICATE: 19 });
    const { row } = await snapshot(g.id);
    expect(row.creditsConsumed).toBe(task.creditsConsumed);
    expect((await spentCredits(app.fetch)) - spentBefore).toBeCloseTo(task.creditsConsumed, 6);
    expect(await publishedStates(app, stream, g.id)).toEqual(["SUBMITTING", "PENDING", "SUCCESS"]);
    stream.close();
  });

  test("a FAILURE after SUCCESS is recorded and ignored", async () => {
    const g = await pendingGeneration("late");
    const task = await settled(g.marker);
    await deliver(g.token, task);
    const before = (await snapshot(g.id)).row;
    const response = await deliver(g.token, { ...task, state: "FAILURE", failMsg: "late failure", creditsConsumed: 0 });
    expect(await response.json()).toEqual({ ok: true, outcome: "LATE_IGNORED" });
    expect((await snapshot(g.id)).row).toEqual(before);
  });

  test("a FAILURE is stored with 0 credits whatever the payload claims", async () => {
    const marker = uniqueMarker("failcharge");
    await app.simulator.scenario({ match: marker, pendingMs: 600_000, outcome: "failure", callback: { mode: "drop" } });
    const { body } = await submitPrompt(app, `storm ${marker}`);
    const id = body.id as string;
    const task = await settled(marker);
    const response = await deliver(callbackTokenFor(id, env.WEBHOOK_SECRET), { ...task, creditsConsumed: 5 });
    expect(await response.json()).toEqual({ ok: true, outcome: "APPLIED" });
    expect((await snapshot(id)).row).toMatchObject({ state: "FAILURE", creditsConsumed: 0, errorCode: "generation_failed" });
  });

  test("a callback that arrives after polling finished the task changes nothing", async () => {
    const g = await pendingGeneration("afterpoll");
    const task = await settled(g.marker);
    await prisma.generation.update({ where: { id: g.id }, data: { lastHeardAt: new Date(0) } });
    const polled = await waitFor(async () => {
      const response = await app.fetch(`/api/generations/${g.id}`);
      const body = (await response.json()) as { state: string };
      return body.state === "SUCCESS" ? body : null;
    });
    expect(polled.state).toBe("SUCCESS");
    const before = (await snapshot(g.id)).row;
    const response = await deliver(g.token, task);
    expect(await response.json()).toEqual({ ok: true, outcome: "DUPLICATE" });
    expect((await snapshot(g.id)).row).toEqual(before);
    const sources = await prisma.delivery.findMany({ where: { generationId: g.id }, orderBy: { id: "asc" } });
    expect(sources.map((d) => `${d.source}:${d.outcome}`)).toEqual(["POLL:APPLIED", "CALLBACK:DUPLICATE"]);
  });
});

describe("adoption: a generation that never stored its taskId", () => {
  /** Every status request the gateway got for this task id (the simulator logs all requests). */
  const statusCalls = async (taskId: string) => (await app.simulator.requests("")).filter((r) => r.method === "GET" && r.path === `/api/generate/${taskId}`).length;
  const forged = (taskId: string) => ({ taskId, state: "SUCCESS", resultUrls: ["https://attacker.example/x.mp4"], creditsConsumed: 999 });

  /** A generation whose submit the gateway answered with a cut connection: its task exists, its row never learned the id. */
  async function lostAnswer(label: string) {
    const marker = uniqueMarker(label);
    await app.simulator.scenario({ match: marker, submitDrop: "after", pendingMs: 600_000, callback: { mode: "drop" } });
    const { status, body } = await submitPrompt(app, `lost answer ${marker}`);
    expect(status).toBe(503);
    const id = (body.generation as { id: string }).id;
    const [task] = await app.simulator.tasks(marker);
    expect(await prisma.generation.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: "SUBMIT_FAILED", taskId: null, errorCode: "submit_no_answer" });
    return { marker, id, taskId: task!.taskId, token: callbackTokenFor(id, env.WEBHOOK_SECRET) };
  }

  test.each([
    ["402 insufficient credits", { submitStatus: 402 }],
    ["422 invalid input", { submitStatus: 422 }],
    ["401 bad key", { submitStatus: 401 }],
  ])("a submission refused with %s can never be claimed, even with its token; the gateway is not asked", async (_name, scenario) => {
    const marker = uniqueMarker("refused");
    await app.simulator.scenario({ match: marker, ...scenario });
    const { body } = await submitPrompt(app, `refused ${marker}`);
    const id = (body.generation as { id: string }).id;
    const before = await snapshot(id);
    const response = await deliver(callbackTokenFor(id, env.WEBHOOK_SECRET), forged("task_that_never_existed"));
    expect(response.status).toBe(404);
    expect(await snapshot(id)).toEqual(before);
    expect(before.row).toMatchObject({ state: "SUBMIT_FAILED", creditsConsumed: 0, taskId: null });
    expect(await statusCalls("task_that_never_existed")).toBe(0);
  });

  test("a complete body naming a task the gateway does not know is confirmed first, and refused", async () => {
    const g = await lostAnswer("unknown-task");
    const before = await snapshot(g.id);
    const response = await deliver(g.token, forged("task_that_never_existed"));
    expect(response.status).toBe(404);
    expect(await snapshot(g.id)).toEqual(before);
  });

  test("a complete body is only a hint: what is written is the task the gateway confirms", async () => {
    const g = await lostAnswer("confirm");
    const task = await settled(g.marker);
    const response = await deliver(g.token, forged(g.taskId));
    expect(await response.json()).toEqual({ ok: true, outcome: "APPLIED" });
    expect((await snapshot(g.id)).row).toMatchObject({
      state: "SUCCESS",
      taskId: g.taskId,
      creditsConsumed: task.creditsConsumed,
      resultUrls: JSON.stringify(task.resultUrls),
      errorCode: null,
    });
    expect(await statusCalls(g.taskId)).toBe(1);
  });

  test("a body naming another generation's task → 409, never 500, and neither row changes", async () => {
    const owner = await pendingGeneration("owner");
    const g = await lostAnswer("thief");
    const before = [await snapshot(owner.id), await snapshot(g.id)];
    const response = await deliver(g.token, { taskId: owner.taskId, state: "PENDING" });
    expect(response.status).toBe(409);
    expect([await snapshot(owner.id), await snapshot(g.id)]).toEqual(before);
  });
});

describe("credits that are not a plain amount", () => {
  test.each([
    ["an empty string", ""],
    ["false", false],
    ["a hex string", "0x1F"],
    ["1e308", 1e308],
  ])("SUCCESS with creditsConsumed %s is confirmed with the gateway: the real charge is stored", async (_name, creditsConsumed) => {
    const g = await pendingGeneration("credits");
    const task = await settled(g.marker);
    const response = await deliver(g.token, { ...task, creditsConsumed });
    expect(await response.json()).toEqual({ ok: true, outcome: "APPLIED" });
    expect((await snapshot(g.id)).row).toMatchObject({ state: "SUCCESS", creditsConsumed: task.creditsConsumed });
    expect((await app.simulator.requests(g.marker)).filter((r) => r.method === "GET")).toHaveLength(1);
  });
});
