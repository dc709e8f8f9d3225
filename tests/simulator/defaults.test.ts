// What the simulator does with no settings at all, what it does with env
// settings, how it refuses bad ones, and the log it prints.
import { execFile } from "node:child_process";
import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "@/simulator/config";
import { inputs, launchSimulator, marker, startReceiver, waitFor } from "./harness";

const [plain, configured, receiver] = await Promise.all([
  launchSimulator(),
  launchSimulator({
    SIMULATOR_LOG: "requests",
    SIMULATOR_START_CREDITS: "7.5",
    SIMULATOR_EXTRA_API_KEYS: "ci-key, qa-key",
    SIMULATOR_OUTAGE_STATUS: "503",
    SIMULATOR_PENDING_MS: "0",
    SIMULATOR_PENDING_JITTER_MS: "0",
    SIMULATOR_CALLBACK_RETRIES: "1",
    SIMULATOR_CALLBACK_BACKOFF_MS: "50",
  }),
  startReceiver(),
]);
afterAll(async () => {
  plain.stop();
  configured.stop();
  await receiver.close();
});

describe("defaults", () => {
  const sim = plain;
  // Submitted now and read at the end, after the 7 s of the retry schedule, to check its default PENDING time.
  const defaultTask = sim.submit(inputs.text(`default pending ${marker("pending")}`, 1));

  test("127.0.0.1:4010, key sim-dev-key, 100 credits", async () => {
    expect(loadConfig({})).toMatchObject({ SIMULATOR_HOST: "127.0.0.1", SIMULATOR_PORT: 4010, SIMULATOR_API_KEY: "sim-dev-key", SIMULATOR_EXTRA_API_KEYS: [], SIMULATOR_START_CREDITS: 100 });
    expect((await sim.credits()).credits).toBe(100); // `held` depends on whether defaultTask is in yet
  });

  test("run-time settings as the README documents them", async () => {
    expect(await sim.control.config()).toEqual({
      SIMULATOR_PENDING_MS: 3000,
      SIMULATOR_PENDING_JITTER_MS: 1000,
      SIMULATOR_FAILURE_RATE: 0,
      SIMULATOR_RESULT_TTL_MS: 86_400_000,
      SIMULATOR_CALLBACK_RETRIES: 3,
      SIMULATOR_CALLBACK_BACKOFF_MS: 1000,
      SIMULATOR_CALLBACK_TIMEOUT_MS: 10_000,
      SIMULATOR_CALLBACK_DUPLICATES: 0,
      SIMULATOR_CALLBACK_SHAPE: "flat",
      SIMULATOR_CALLBACK_DELAY_MS: 0,
      SIMULATOR_CALLBACK_DROP_RATE: 0,
      SIMULATOR_CALLBACK_OUT_OF_ORDER: false,
      SIMULATOR_LATENCY_MS: 0,
      SIMULATOR_LATENCY_JITTER_MS: 0,
      SIMULATOR_RATE_LIMIT: 0,
      SIMULATOR_RATE_LIMIT_WINDOW_MS: 10_000,
      SIMULATOR_ERROR_RATE: 0,
      SIMULATOR_OUTAGE_STATUS: 0,
    });
  });

  test("a failing receiver is retried 3 times, at 1 s, 2 s and 4 s, then given up", { timeout: 30_000 }, async () => {
    const m = marker("schedule");
    await sim.control.scenario({ match: m, pendingMs: 0 });
    receiver.always(500);
    const { taskId } = await sim.submit(inputs.text(`schedule ${m}`, 1), { webhook_url: receiver.url(m) });
    // The simulator's own record of its last attempt: refused, and no retry scheduled after it.
    const attempts = await waitFor(async () => {
      const all = (await sim.control.callbacks(m)).filter((a) => a.taskId === taskId);
      return all.some((a) => a.retryInMs === null) && all;
    }, 25_000);
    expect(attempts.map((a) => [a.attempt, a.status, a.retryInMs])).toEqual([
      [1, 500, 1000],
      [2, 500, 2000],
      [3, 500, 4000],
      [4, 500, null],
    ]);
    // A timer never fires early, so these bounds are exact; a late one only stretches a gap.
    const gaps = receiver.hits.slice(1).map((h, i) => h.at - receiver.hits[i]!.at);
    expect(receiver.hits).toHaveLength(4);
    expect(gaps[0]).toBeGreaterThanOrEqual(990);
    expect(gaps[1]).toBeGreaterThanOrEqual(1990);
    expect(gaps[2]).toBeGreaterThanOrEqual(3990);
  });

  test("a task is PENDING for 3–4 s by default", async () => {
    const task = await sim.task((await defaultTask).taskId);
    expect(task.state).toBe("SUCCESS");
    expect(Date.parse(task.completeTime!) - Date.parse(task.createTime)).toBeGreaterThanOrEqual(3000);
    expect(Date.parse(task.completeTime!) - Date.parse(task.createTime)).toBeLessThanOrEqual(4000);
  });
});

describe("environment", () => {
  const sim = configured;

  test("SIMULATOR_OUTAGE_STATUS starts the gateway down until DELETE /__control/outage; reset brings it back", async () => {
    expect((await sim.api("/api/credits")).status).toBe(503);
    await sim.control.endOutage();
    expect((await sim.api("/api/credits")).status).toBe(200);
    await sim.control.reset();
    expect((await sim.api("/api/credits")).status).toBe(503);
    await sim.control.endOutage();
  });

  test("SIMULATOR_START_CREDITS and SIMULATOR_EXTRA_API_KEYS: one account, several keys", async () => {
    for (const key of ["sim-dev-key", "ci-key", "qa-key"]) {
      const response = await sim.api("/api/credits", { key });
      expect(await response.json()).toEqual({ credits: 7.5, held: 0 });
    }
    expect((await sim.api("/api/credits", { key: "ci-key, qa-key" })).status).toBe(401);
  });

  test("one readable log line per request and per callback attempt", async () => {
    const m = marker("log");
    receiver.reset();
    receiver.answer(500);
    const { taskId } = await sim.submit(inputs.text(`logged ${m}`, 1), { webhook_url: receiver.url(m) });
    await waitFor(() => receiver.hits.length >= 2);
    await sim.api("/api/credits", { key: "nope" });
    await waitFor(() => sim.output.some((l) => l.includes("GET /api/credits 401")));
    const lines = sim.output.filter((l) => l.includes(taskId) || l.includes("/api/"));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[simulator\] POST \/api\/generate 200 \d+ms$/),
        expect.stringMatching(new RegExp(`^\\[simulator\\] callback ${taskId} SUCCESS copy 1 attempt 1 → 500 \\(\\d+ms, retry in 50ms\\)$`)),
        expect.stringMatching(new RegExp(`^\\[simulator\\] callback ${taskId} SUCCESS copy 1 attempt 2 → 200 \\(\\d+ms\\)$`)),
        expect.stringMatching(/^\[simulator\] GET \/api\/credits 401 \d+ms$/),
      ]),
    );
    expect(sim.output.join("\n")).not.toContain("sim-dev-key");
  });

  // Concurrent: each one is a process start.
  test.concurrent.each([
    ["SIMULATOR_FAILURE_RATE", "2"],
    ["SIMULATOR_PORT", "99999"],
    ["SIMULATOR_CALLBACK_SHAPE", "xml"],
    ["SIMULATOR_PENDING_MS", "-5"],
  ])("an invalid %s stops it at start with a message naming it", async (name, value) => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ["--import", "tsx", "simulator/main.ts"], { env: { ...process.env, SIMULATOR_PORT: "0", [name]: value }, timeout: 20_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
      );
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(name);
    expect(run.stdout).not.toContain("listening on");
  });
});
