// The gateway misbehaving on purpose: per-key throttling and forced 429/402/5xx,
// outages (503, connection refused, connection cut), slow responses, random
// errors, dropped submit connections, and scenarios isolated by marker.
import http from "node:http";
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { inputs, launchSimulator, marker, sleep, startReceiver, waitFor } from "./harness";

const sim = await launchSimulator({ SIMULATOR_PENDING_MS: "100", SIMULATOR_PENDING_JITTER_MS: "0", SIMULATOR_CALLBACK_BACKOFF_MS: "100" });
const receiver = await startReceiver();
afterAll(async () => {
  sim.stop();
  await receiver.close();
});
beforeEach(async () => {
  // Retried: a test that failed while the simulator refused connections must not fail the next ones.
  await waitFor(() => sim.control.reset().then(() => true, () => false), 3000);
  receiver.reset();
});

/** The network error a request on a new connection fails with, or "answered". */
function networkError(path: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(new URL(path, sim.url), { agent: false, headers: { Authorization: "Bearer sim-dev-key" } }, (res) => {
      res.resume();
      res.on("end", () => resolve("answered"));
      res.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
  });
}

describe("throttling", () => {
  test("past a key's rate limit → 429 {code, message} with Retry-After, until the window passes", async () => {
    await sim.control.addKey("k-throttled", { rateLimit: 3, rateLimitWindowMs: 1000 });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const response = await sim.api("/api/credits", { key: "k-throttled" });
      statuses.push(response.status);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
    }
    expect(statuses).toEqual([200, 200, 200]);
    const throttled = await sim.api("/api/credits", { key: "k-throttled" });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("1");
    expect(throttled.headers.get("x-ratelimit-limit")).toBe("3");
    expect(await throttled.json()).toEqual({ code: "rate_limited", message: expect.any(String) });
    // Other keys have their own budget.
    expect((await sim.api("/api/credits")).status).toBe(200);
    await sleep(1050);
    expect((await sim.api("/api/credits", { key: "k-throttled" })).status).toBe(200);
  });

  test("throttled submits create no task", async () => {
    await sim.control.addKey("k-submit", { rateLimit: 1, rateLimitWindowMs: 5000 });
    const m = marker("throttled-submit");
    expect((await sim.submit(inputs.text(`a ${m}`, 1), { key: "k-submit" })).status).toBe(200);
    const second = await sim.submit(inputs.text(`b ${m}`, 1), { key: "k-submit" });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(4);
    expect(await sim.control.tasks(m)).toHaveLength(1);
  });

  test("SIMULATOR_RATE_LIMIT applies to every key; reset lifts it", async () => {
    await sim.control.configure({ SIMULATOR_RATE_LIMIT: 2, SIMULATOR_RATE_LIMIT_WINDOW_MS: 60_000 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await sim.api("/api/credits")).status);
    expect(statuses).toEqual([200, 200, 429]);
    await sim.control.reset();
    expect((await sim.api("/api/credits")).status).toBe(200);
  });

  test("a forced 429 for one marker's submit, with the Retry-After asked for, next time accepted", async () => {
    const m = marker("forced429");
    await sim.control.scenario({ match: m, times: 1, submitStatus: 429, retryAfterSeconds: 7 });
    const first = await sim.submit(inputs.text(`x ${m}`, 1));
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("7");
    expect(first.body).toEqual({ code: "rate_limited", message: expect.any(String) });
    expect((await sim.submit(inputs.text(`x ${m}`, 1))).status).toBe(200);
    expect((await sim.submit(inputs.text(`not matched ${marker("other")}`, 1))).status).toBe(200);
  });

  test("statusStatus: a marker's task answers its status calls with 429", async () => {
    const m = marker("status429");
    await sim.control.scenario({ match: m, statusStatus: 429 });
    const { taskId } = await sim.submit(inputs.text(`x ${m}`, 1));
    const response = await sim.api(`/api/generate/${taskId}`);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
  });
});

describe("forced refusals", () => {
  test.each([
    [402, "insufficient_credits"],
    [500, "internal_error"],
    [502, "bad_gateway"],
    [503, "unavailable"],
  ])("submitStatus %i → %s {code, message}, no task, no charge", async (status, code) => {
    const m = marker(`forced${status}`);
    await sim.control.scenario({ match: m, submitStatus: status });
    const result = await sim.submit(inputs.text(`x ${m}`, 1));
    expect(result.status).toBe(status);
    expect(result.body).toEqual({ code, message: expect.any(String) });
    expect(await sim.control.tasks(m)).toEqual([]);
    expect(await sim.credits()).toEqual({ credits: 100, held: 0 });
  });
});

describe("outages", () => {
  test("503 on every API call with Retry-After, until DELETE /__control/outage", async () => {
    await sim.control.outage(503, 60_000);
    for (const response of [await sim.api("/api/credits"), await sim.api("/api/generate/task_x"), await sim.api("/api/generate", { json: { model: "x" } })]) {
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(50);
      expect(await response.json()).toEqual({ code: "maintenance", message: expect.any(String) });
    }
    await sim.control.endOutage();
    expect((await sim.api("/api/credits")).status).toBe(200);
  });

  test("an outage ends by itself after ms, and can answer another status", async () => {
    // Long enough that the first call lands inside it on a loaded machine; its end is waited for.
    const started = Date.now();
    await sim.control.outage(500, 3_000);
    expect((await sim.api("/api/credits")).status).toBe(500);
    await waitFor(async () => (await sim.api("/api/credits")).status === 200, 60_000, "the outage to end by itself");
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  });

  test("connection refused for ms, then the same port answers again; tasks and callbacks carry on meanwhile", async () => {
    const m = marker("down");
    await sim.control.scenario({ match: m, pendingMs: 500 });
    const { taskId } = await sim.submit(inputs.text(`survives ${m}`, 1), { webhook_url: receiver.url(m) });
    await sim.control.refuseConnections(1500);
    const downSince = Date.now();
    expect(await networkError("/api/credits")).toBe("ECONNREFUSED");
    expect(await networkError(`/api/generate/${taskId}`)).toBe("ECONNREFUSED");
    await waitFor(async () => (await networkError("/api/credits")) === "answered", 4000);
    const backUpAt = Date.now();
    // The task finished and its callback went out while the API was down.
    expect(receiver.hits.map((h) => h.body)).toEqual([expect.objectContaining({ taskId, state: "SUCCESS" })]);
    expect(receiver.hits[0]!.at).toBeGreaterThanOrEqual(downSince);
    expect(receiver.hits[0]!.at).toBeLessThan(backUpAt);
    expect((await sim.task(taskId)).state).toBe("SUCCESS");
  });

  test("a refusing outage is kept short: over 60 s → 422", async () => {
    const response = await fetch(`${sim.url}/__control/outage`, { method: "POST", body: JSON.stringify({ mode: "refuse", ms: 61_000 }) });
    expect(response.status).toBe(422);
    expect(await networkError("/api/credits")).toBe("answered");
  });

  test("connections cut without an answer (mode reset), while /__control still answers", async () => {
    await sim.control.cutConnections(60_000);
    expect(await networkError("/api/credits")).not.toBe("answered");
    expect(await sim.control.config()).toHaveProperty("SIMULATOR_PENDING_MS");
    await sim.control.endOutage();
    expect(await networkError("/api/credits")).toBe("answered");
  });
});

describe("dropped submit connections", () => {
  test("submitDrop before: the client gets no answer and no task exists", async () => {
    const m = marker("drop-before");
    await sim.control.scenario({ match: m, times: 1, submitDrop: "before" });
    await expect(sim.submit(inputs.text(`lost ${m}`, 1))).rejects.toThrow();
    expect(await sim.control.tasks(m)).toEqual([]);
    expect((await sim.control.requests(m)).map((r) => r.status)).toEqual([0]);
  });

  test("submitDrop after: the client gets no answer, yet the task runs and is charged", async () => {
    const m = marker("drop-after");
    await sim.control.scenario({ match: m, times: 1, submitDrop: "after" });
    await expect(sim.submit(inputs.text(`orphan ${m}`, 5))).rejects.toThrow();
    await sim.control.settle(m);
    const tasks = await sim.control.tasks(m);
    expect(tasks.map((t) => t.state)).toEqual(["SUCCESS"]);
    expect((await sim.credits()).credits).toBeCloseTo(100 - 0.704, 4);
  });
});

describe("slow and flaky responses", () => {
  // The simulator records the latency it added to each API call (`delayedMs`); a timer never fires early, so the lower bounds are exact.
  test("SIMULATOR_LATENCY_MS slows every API call, not /__control", async () => {
    await sim.control.configure({ SIMULATOR_LATENCY_MS: 800 });
    const m = marker("latency");
    let started = Date.now();
    const { taskId } = await sim.submit(inputs.text(`x ${m}`, 1));
    expect(Date.now() - started).toBeGreaterThanOrEqual(790);
    started = Date.now();
    expect((await sim.api(`/api/generate/${taskId}`, { key: "wrong" })).status).toBe(401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(790);
    expect((await sim.control.requests(m)).map((r) => [r.method, r.status, r.delayedMs])).toEqual([
      ["POST", 200, 800],
      ["GET", 401, 800],
    ]);
    // A control call sent after a slowed API call is answered while that call still waits.
    await sim.control.configure({ SIMULATOR_LATENCY_MS: 5_000 });
    let apiAnswered = false;
    const slowCall = sim.api("/api/credits").then(() => (apiAnswered = true));
    await sim.control.config();
    expect(apiAnswered).toBe(false);
    await slowCall;
  });

  test("a scenario's latencyMs slows only that marker's calls", async () => {
    const slow = marker("slow");
    const fast = marker("fast");
    await sim.control.scenario({ match: slow, latencyMs: 800, pendingMs: 60_000 });
    const started = Date.now();
    const { taskId } = await sim.submit(inputs.text(`x ${slow}`, 1));
    await sim.task(taskId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1590);
    await sim.submit(inputs.text(`y ${fast}`, 1));
    expect((await sim.control.requests(slow)).map((r) => [r.method, r.delayedMs])).toEqual([
      ["POST", 800],
      ["GET", 800],
    ]);
    expect((await sim.control.requests(fast)).map((r) => [r.method, r.delayedMs])).toEqual([["POST", 0]]);
  });

  test("SIMULATOR_ERROR_RATE 1 answers every API call 503; 0 none", async () => {
    await sim.control.configure({ SIMULATOR_ERROR_RATE: 1 });
    const response = await sim.api("/api/credits");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ code: "unavailable", message: expect.any(String) });
    await sim.control.configure({ SIMULATOR_ERROR_RATE: 0 });
    expect((await sim.api("/api/credits")).status).toBe(200);
  });

  test("an invalid setting → 422 naming it, and nothing changes", async () => {
    const response = await fetch(`${sim.url}/__control/config`, { method: "PATCH", body: JSON.stringify({ SIMULATOR_FAILURE_RATE: 2 }) });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ code: "invalid_config", message: expect.stringContaining("SIMULATOR_FAILURE_RATE") });
    const unknown = await fetch(`${sim.url}/__control/config`, { method: "PATCH", body: JSON.stringify({ SIMULATOR_API_KEY: "stolen" }) });
    expect(unknown.status).toBe(422);
    expect((await sim.control.config()).SIMULATOR_FAILURE_RATE).toBe(0);
  });
});

describe("isolation by marker", () => {
  test("two tests' scenarios, side by side, each touch only their own tasks and records", async () => {
    const a = marker("a");
    const b = marker("b");
    await sim.control.scenario({ match: a, outcome: "failure", callback: { duplicates: 2 } });
    await sim.control.scenario({ match: b, callback: { mode: "drop" } });
    const [ta, tb] = await Promise.all([
      sim.submit(inputs.text(`A ${a}`, 1), { webhook_url: receiver.url(a) }),
      sim.submit(inputs.text(`B ${b}`, 1), { webhook_url: receiver.url(b) }),
    ]);
    await waitFor(async () => (await sim.control.callbacks(a)).length === 3);
    await waitFor(async () => (await sim.task(tb.taskId)).state === "SUCCESS");
    expect((await sim.task(ta.taskId)).state).toBe("FAILURE");
    expect(await sim.control.callbacks(b)).toEqual([]);
    expect((await sim.control.tasks(a)).map((t) => t.taskId)).toEqual([ta.taskId]);
    const [submitB, ...pollsB] = await sim.control.requests(b);
    expect(submitB).toMatchObject({ method: "POST", path: "/api/generate", status: 200, prompt: `B ${b}` });
    expect(pollsB.length).toBeGreaterThan(0);
    expect(pollsB.every((r) => r.path === `/api/generate/${tb.taskId}`)).toBe(true);
    const requestsA = await sim.control.requests(a);
    expect(requestsA.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/generate", `GET /api/generate/${ta.taskId}`]);
  });

  test("the newest matching scenario wins; times uses it up; DELETE ?match removes only that marker's", async () => {
    const m = marker("stack");
    const other = marker("keep");
    await sim.control.scenario({ match: m, outcome: "failure" });
    await sim.control.scenario({ match: m, times: 1, submitStatus: 503 });
    await sim.control.scenario({ match: other, outcome: "failure" });
    expect((await sim.submit(inputs.text(`1 ${m}`, 1))).status).toBe(503);
    const second = await sim.submit(inputs.text(`2 ${m}`, 1));
    await sim.control.settle(m);
    expect((await sim.task(second.taskId)).state).toBe("FAILURE");
    await sim.control.clearScenarios(m);
    const third = await sim.submit(inputs.text(`3 ${m}`, 1));
    const kept = await sim.submit(inputs.text(`4 ${other}`, 1));
    await sim.control.settle(m);
    await sim.control.settle(other);
    expect((await sim.task(third.taskId)).state).toBe("SUCCESS");
    expect((await sim.task(kept.taskId)).state).toBe("FAILURE");
  });

  test("reset clears scenarios, outages, settings, added keys and records", async () => {
    const m = marker("reset");
    await sim.control.scenario({ match: m, submitStatus: 500 });
    await sim.control.addKey("k-temp");
    await sim.control.configure({ SIMULATOR_LATENCY_MS: 1000 });
    await sim.control.outage(503, 60_000);
    await sim.control.reset();
    expect((await sim.submit(inputs.text(`x ${m}`, 1))).status).toBe(200);
    expect((await sim.api("/api/credits", { key: "k-temp" })).status).toBe(401);
    // No latency left: the simulator added none to the submit.
    expect((await sim.control.requests(m)).map((r) => [r.status, r.delayedMs])).toEqual([[200, 0]]);
  });
});
