// Every way the gateway can say no at submit, through the real simulator:
// what is stored, what the user is told, what was charged, and exactly which
// requests reached the gateway.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { readGeneration, submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

// One trusted proxy: X-Forwarded-For tells visitors apart (idempotency keys are per visitor).
const app = await startApp({ env: { GATEWAY_TIMEOUT_MS: "1000", TRUSTED_PROXY_HOPS: "1" } });
const { prisma } = await import("@/lib/db");

afterAll(() => app.close());

const submits = async (marker: string) => (await app.simulator.requests(marker)).filter((r) => r.method === "POST");

async function refused(label: string, scenario: Record<string, unknown>, input: Record<string, unknown> = {}) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, ...scenario });
  const response = await submitPrompt(app, `a red kite ${marker}`, input);
  return { marker, ...response };
}

describe("refusals at submit", () => {
  test("invalid input → 422 with the fields; nothing stored, nothing sent", async () => {
    const marker = uniqueMarker("invalid");
    const before = await prisma.generation.count();
    const response = await submitPrompt(app, `x ${marker}`, { duration: 99, aspect_ratio: "2:1" });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      error: { code: "invalid_input", message: "Check the highlighted fields.", fields: { duration: ["At most 10"], aspect_ratio: ["One of 16:9, 9:16, 1:1"] } },
    });
    expect(await prisma.generation.count()).toBe(before);
    expect(await app.simulator.requests(marker)).toEqual([]);
  });

  test.each([
    // The operator's balance at the gateway ran out: not the user's credits, so not their 402.
    ["402 from the gateway", { submitStatus: 402 }, 503, "submit_insufficient_credits", /cannot take new videos right now/],
    ["422 from the gateway", { submitStatus: 422 }, 422, "submit_invalid_input", /The gateway rejected the input/],
    ["500", { submitStatus: 500 }, 503, "submit_unavailable", /unavailable right now/],
    ["401 (a misconfigured key)", { submitStatus: 401 }, 503, "submit_unauthorized", /misconfigured/],
  ])("%s → SUBMIT_FAILED, 0 credits, one request, a clear message", async (_name, scenario, status, errorCode, message) => {
    const { marker, status: got, body } = await refused("refusal", scenario);
    expect(got).toBe(status);
    const error = body.error as { message: string };
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/sim-dev-key|Bearer/);
    const generation = await readGeneration(app, (body.generation as { id: string }).id);
    expect(generation).toMatchObject({ state: "SUBMIT_FAILED", creditsConsumed: 0, taskId: null, error: { code: errorCode } });
    expect(await submits(marker)).toHaveLength(1);
  });

  test("a real shortfall in the gateway's ledger → 503 and the balance untouched", async () => {
    await app.simulator.setCredits(0.5);
    try {
      const marker = uniqueMarker("broke");
      const response = await submitPrompt(app, `expensive ${marker}`, { duration: 10 });
      expect(response.status).toBe(503);
      // What the app recorded: a refused submission, charged nothing.
      expect(await readGeneration(app, (response.body.generation as { id: string }).id)).toMatchObject({ state: "SUBMIT_FAILED", creditsConsumed: 0, taskId: null });
      expect(await app.simulator.credits()).toBe(0.5);
      expect(await submits(marker)).toHaveLength(1);
    } finally {
      await app.simulator.setCredits(100);
    }
  });

  test("429 with Retry-After is retried once the gateway allows, and then succeeds", async () => {
    const { marker, status, body } = await refused("throttled-once", { submitStatus: 429, retryAfterSeconds: 1, times: 1 });
    expect(status).toBe(201);
    expect(body).toMatchObject({ state: "PENDING", taskId: expect.stringMatching(/^task_/) });
    expect((await submits(marker)).map((r) => r.status)).toEqual([429, 200]);
  });

  test("429 that persists → SUBMIT_FAILED with Retry-After passed on, after a bounded number of tries", async () => {
    const { marker, status, headers, body } = await refused("throttled", { submitStatus: 429, retryAfterSeconds: 1 });
    expect(status).toBe(429);
    expect(headers.get("retry-after")).toBe("1");
    expect((body.error as { message: string }).message).toMatch(/Try again in 1 s/);
    expect(await submits(marker)).toHaveLength(3);
  });

  test("503 with Retry-After is retried; a plain 500 is not", async () => {
    const retried = await refused("maintenance", { submitStatus: 503, retryAfterSeconds: 1, times: 1 });
    expect(retried.status).toBe(201);
    expect((await submits(retried.marker)).map((r) => r.status)).toEqual([503, 200]);
  });

  // That the task the gateway started anyway is then adopted by its callback
  // (confirmed by a GET that answers in time) is tests/faults/gateway-slow.test.ts.
  test("a timeout after sending is not retried, and the generation says a started task may still appear", async () => {
    const { marker, status, body } = await refused("slow", { latencyMs: 1500, pendingMs: 200 });
    expect(status).toBe(503);
    expect((body.error as { message: string }).message).toMatch(/did not answer in time.*if it started the task anyway, the result will appear here/);
    const id = (body.generation as { id: string }).id;
    expect(await readGeneration(app, id)).toMatchObject({ state: "SUBMIT_FAILED", creditsConsumed: 0, error: { code: "submit_timeout" } });
    // The gateway logs the submit once it has answered it (after its latency): one, never a retry.
    await waitFor(async () => (await app.simulator.tasks(marker)).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await submits(marker)).toHaveLength(1);
  });

  test("a connection cut after sending: not retried; the task the gateway started claims the generation by callback", async () => {
    const { marker, status, body } = await refused("cut", { submitDrop: "after", pendingMs: 200 });
    expect(status).toBe(503);
    expect((body.error as { message: string }).message).toMatch(/if it started the task anyway/);
    const id = (body.generation as { id: string }).id;
    const adopted = await waitFor(async () => {
      const generation = await readGeneration(app, id);
      return generation.state === "SUCCESS" ? generation : null;
    });
    const [task] = await app.simulator.tasks(marker);
    expect(adopted).toMatchObject({ taskId: task!.taskId, creditsConsumed: task!.creditsConsumed });
    expect(await submits(marker)).toHaveLength(1);
  });
});

describe("never submit twice", () => {
  test("the same Idempotency-Key, sent concurrently, makes one generation and one gateway task", async () => {
    const marker = uniqueMarker("idem");
    const key = `form-${marker.replace(/\W/g, "")}`;
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => submitPrompt(app, `double click ${marker}`, {}, { "Idempotency-Key": key })),
    );
    // The first is created; the others see it (201, same id) or, while it is
    // still with the gateway, are told to retry (409).
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const ids = new Set(responses.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const again = await submitPrompt(app, `double click ${marker}`, {}, { "Idempotency-Key": key });
    expect(again).toMatchObject({ status: 201, body: { id: [...ids][0] } });
    // Stored scoped to the owner, "<owner>:<key>".
    expect(await prisma.generation.count({ where: { idempotencyKey: { endsWith: `:${key}` } } })).toBe(1);
    expect(await submits(marker)).toHaveLength(1);
  });

  test("a refused submission repeated with its key gets the same refusal, and is not sent again", async () => {
    const marker = uniqueMarker("idem-refused");
    await app.simulator.scenario({ match: marker, submitStatus: 402 });
    const key = `form-${marker.replace(/\W/g, "")}`;
    const first = await submitPrompt(app, `broke ${marker}`, {}, { "Idempotency-Key": key });
    const second = await submitPrompt(app, `broke ${marker}`, {}, { "Idempotency-Key": key });
    expect([first.status, second.status]).toEqual([503, 503]);
    expect(second.body.error).toEqual(first.body.error);
    expect(await submits(marker)).toHaveLength(1);
  });

  test("the same key with a different request → 422 with a clear message; the second is never sent", async () => {
    const marker = uniqueMarker("idem-other");
    const key = `form-${marker.replace(/\W/g, "")}`;
    const first = await submitPrompt(app, `first ${marker}`, {}, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const second = await submitPrompt(app, `second ${marker}`, {}, { "Idempotency-Key": key });
    expect(second.status).toBe(422);
    expect(second.body.error).toEqual({
      code: "idempotency_key_reused",
      message: "This Idempotency-Key was already used for a different request. Send a new key with each new submission.",
    });
    const changedInput = await submitPrompt(app, `first ${marker}`, { duration: 3 }, { "Idempotency-Key": key });
    expect(changedInput.status).toBe(422);
    expect(await prisma.generation.count({ where: { prompt: { contains: marker } } })).toBe(1);
    expect((await submits(marker)).map((r) => r.prompt)).toEqual([`first ${marker}`]);
  });

  test("while the first request is with the gateway, the same key → 409", async () => {
    const marker = uniqueMarker("idem-inflight");
    await app.simulator.scenario({ match: marker, latencyMs: 600 });
    const key = `form-${marker.replace(/\W/g, "")}`;
    const first = submitPrompt(app, `slow ${marker}`, {}, { "Idempotency-Key": key });
    await waitFor(() => prisma.generation.findFirst({ where: { prompt: { contains: marker } } }));
    const second = await submitPrompt(app, `slow ${marker}`, {}, { "Idempotency-Key": key });
    expect(second.status).toBe(409);
    expect((await first).status).toBe(201);
    expect(await submits(marker)).toHaveLength(1);
  });

  test("keys are per visitor: another visitor's identical key is another submission", async () => {
    const marker = uniqueMarker("idem-scope");
    const key = `form-${marker.replace(/\W/g, "")}`;
    // Visitors are owners: two cookie jars, as two browsers.
    const alice = await submitPrompt({ ...app, fetch: app.visitor() }, `shared key ${marker}`, {}, { "Idempotency-Key": key });
    const bob = await submitPrompt({ ...app, fetch: app.visitor() }, `shared key ${marker}`, {}, { "Idempotency-Key": key });
    expect([alice.status, bob.status]).toEqual([201, 201]);
    expect(bob.body.id).not.toBe(alice.body.id);
    expect(await submits(marker)).toHaveLength(2);
  });

  test("a key expires after 24 hours: then it starts a new submission", async () => {
    const marker = uniqueMarker("idem-expired");
    const key = `form-${marker.replace(/\W/g, "")}`;
    const first = await submitPrompt(app, `again tomorrow ${marker}`, {}, { "Idempotency-Key": key });
    await prisma.generation.update({ where: { id: first.body.id as string }, data: { createdAt: new Date(Date.now() - 25 * 3_600_000) } });
    const later = await submitPrompt(app, `again tomorrow ${marker}`, {}, { "Idempotency-Key": key });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(await submits(marker)).toHaveLength(2);
  });

  test("a malformed Idempotency-Key → 400, nothing sent", async () => {
    const marker = uniqueMarker("badkey");
    const response = await submitPrompt(app, `k ${marker}`, {}, { "Idempotency-Key": "no spaces allowed" });
    expect(response.status).toBe(400);
    expect(await app.simulator.requests(marker)).toEqual([]);
  });
});
