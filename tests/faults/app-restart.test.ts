// The app killed (SIGKILL) while tasks are pending and started again over the
// same database and port: callbacks that hit the dead instance are retried by
// the gateway, polling picks up the rest, and nothing is lost or charged twice.
import { afterAll, afterEach, expect, test } from "vitest";
import { startSimulator } from "../support/global-setup";
import { SimulatorControl, uniqueMarker } from "../support/simulator-control";
import { waitFor } from "../support/app";
import { fileDatabase } from "./support/database";
import { freePort, startAppProcess, type AppProcess } from "./support/app-process";
import { expectNothingLost } from "./support/invariants";

const db = fileDatabase();
const simulator = await startSimulator({
  SIMULATOR_PENDING_MS: "800",
  SIMULATOR_PENDING_JITTER_MS: "0",
  SIMULATOR_CALLBACK_RETRIES: "8",
  SIMULATOR_CALLBACK_BACKOFF_MS: "250",
  SIMULATOR_START_CREDITS: "1000",
  SIMULATOR_LOG: "quiet",
});
const control = new SimulatorControl(simulator.url);
const port = await freePort();
// The longest gateway timeout: the instance killed mid-submit is still waiting for the held answer when it dies.
const appEnv = { DATABASE_URL: db.url, GATEWAY_BASE_URL: simulator.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, POLL_STALE_MS: "1000", GATEWAY_TIMEOUT_MS: "60000" };
Object.assign(process.env, appEnv);
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");

const instances: AppProcess[] = [];
const startInstance = async () => {
  const instance = await startAppProcess({ port, env: appEnv });
  instances.push(instance);
  return instance;
};
afterAll(async () => {
  for (const instance of instances) await instance.kill();
  simulator.child.kill("SIGTERM");
  // A simulator busy with callbacks may not stop at once: never leave one behind.
  setTimeout(() => simulator.child.exitCode === null && simulator.child.kill("SIGKILL"), 2000).unref();
});

afterEach(async () => {
  // One instance at a time holds the port.
  for (const instance of instances) await instance.kill();
});

const submit = (app: AppProcess, prompt: string) =>
  fetch(`${app.url}/api/generations`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } }),
  });
const reconcile = (app: AppProcess) => fetch(`${app.url}/api/cron/reconcile`, { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });

const ROUNDS = 2;
// Each step below waits for the event it needs; these bounds are only how long a
// loaded machine may take (two `next start`s, the gateway's callback retries).
const RESTART_TEST_MS = 180_000;
const EVENT_MS = 60_000;

test.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))(
  "round %i: killed with 5 tasks pending, restarted: all complete once (by the gateway's retried callbacks or the cron's polls)",
  async () => {
    const marker = uniqueMarker("restart");
    const quiet = `${marker}-quiet`;
    // Pending until the test settles them, after the kill: however slow the submits, none finishes before it.
    await control.scenario({ match: marker, pendingMs: 3_600_000 });
    await control.scenario({ match: quiet, pendingMs: 3_600_000, callback: { mode: "drop" } });
    const before = await startInstance();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await submit(before, `lighthouse ${i} ${i < 3 ? marker : quiet}`);
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }
    await before.kill("SIGKILL");
    // The tasks finish at the gateway while no app is listening: each callback is refused at least once.
    expect(await control.settle(marker)).toEqual({ settled: 5 });
    await waitFor(async () => new Set((await control.callbacks(marker)).filter((c) => c.status === "connection error").map((c) => c.taskId)).size === 3, EVENT_MS);

    const after = await startInstance();
    const rows = await waitFor(
      async () => {
        await reconcile(after);
        const found = await prisma.generation.findMany({ where: { id: { in: ids } } });
        return found.every((r) => r.state === "SUCCESS") && found;
      },
      EVENT_MS,
    );
    expect(rows).toHaveLength(5);
    const tally = await expectNothingLost({ prisma, simulator: control, marker, ids });
    expect(tally).toMatchObject({ lost: 0, chargedTwice: 0, stuckPending: 0 });
    const callbacks = await control.callbacks(marker);
    // Each callback task was refused by the dead instance; then the gateway's
    // retry or the cron's poll, whichever came first, applied it exactly once.
    for (const id of ids.slice(0, 3)) {
      const row = rows.find((r) => r.id === id)!;
      const attempts = callbacks.filter((c) => c.taskId === row.taskId).map((c) => c.status);
      expect(attempts).toContain("connection error");
      expect(attempts.filter((status) => typeof status === "number" && status !== 200)).toEqual([]);
      expect(await prisma.delivery.count({ where: { generationId: id, outcome: "APPLIED" } })).toBe(1);
    }
    const deliveries = await prisma.delivery.findMany({ where: { generationId: { in: ids.slice(3) }, outcome: "APPLIED" } });
    expect(deliveries.map((d) => d.source)).toEqual(["POLL", "POLL"]);
    // One submission per generation: nothing was sent twice across the restart.
    expect((await control.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(5);
  },
  RESTART_TEST_MS,
);

// The instance dies after sending the submit and before storing the taskId.
// The gateway runs and charges the task; its callback (authenticated by the
// generation's token) claims the generation, so the user sees what they paid for.
test("killed mid-submit: the task the gateway started is adopted, not lost", async () => {
  const marker = uniqueMarker("midsubmit");
  // The gateway starts the task at once and holds its answer, so the app dies
  // between sending and storing the taskId. Retries enough to outlast the
  // restart (the new instance warms up before it listens).
  await control.scenario({ match: marker, submitAnswerDelayMs: 120_000, pendingMs: 300, callback: { retries: 8, backoffMs: 200 } });
  const before = await startInstance();
  const submitting = submit(before, `ember ${marker}`).catch(() => null);
  // The task exists at the gateway, the app still waits for its answer: die now.
  await waitFor(async () => (await control.tasks(marker)).length === 1, EVENT_MS);
  await before.kill("SIGKILL");
  await submitting;
  const [row] = await prisma.generation.findMany({ where: { prompt: { contains: marker } } });
  expect(row).toMatchObject({ state: "SUBMITTING", taskId: null });
  const after = await startInstance();
  // The gateway started it and calls back: the new instance adopts the task.
  await waitFor(async () => (await control.callbacks(marker)).some((a) => a.status === 200), EVENT_MS);
  // A cron run past the abandonment window changes nothing.
  await prisma.generation.update({ where: { id: row!.id }, data: { createdAt: new Date(Date.now() - 10 * 60_000) } });
  await reconcile(after);
  const [task] = await control.tasks(marker);
  expect(task).toMatchObject({ state: "SUCCESS" });
  expect(await prisma.generation.findUniqueOrThrow({ where: { id: row!.id } })).toMatchObject({
    state: "SUCCESS",
    taskId: task!.taskId,
    creditsConsumed: task!.creditsConsumed,
  });
}, RESTART_TEST_MS);
