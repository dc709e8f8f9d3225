// Two app instances on one PostgreSQL database behind a round-robin balancer,
// one gateway: what each instance keeps (leases, the single writer,
// idempotency, rate limits) lives in the database, so the pair behaves as one
// app. (SQLite is one process on one machine: this runs in the PostgreSQL pass.)
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startSimulator } from "../support/global-setup";
import { SimulatorControl, uniqueMarker } from "../support/simulator-control";
import { waitFor } from "../support/app";
import { testEngine } from "../support/test-database";
import { startBalancer } from "./support/balancer";
import { useFreshDatabase } from "./support/database";
import { freePort, startAppProcess, type AppProcess } from "./support/app-process";
import { expectNothingLost } from "./support/invariants";

type Prisma = typeof import("@/lib/db").prisma;

describe.skipIf(testEngine() !== "postgres")("two instances, one PostgreSQL", () => {
  let prisma: Prisma;
  let cronSecret: string;
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  let control: SimulatorControl;
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  const instances: AppProcess[] = [];

  beforeAll(async () => {
    const db = useFreshDatabase("multi");
    simulator = await startSimulator({
      SIMULATOR_PENDING_MS: "600",
      SIMULATOR_PENDING_JITTER_MS: "200",
      SIMULATOR_CALLBACK_RETRIES: "8",
      SIMULATOR_CALLBACK_BACKOFF_MS: "250",
      SIMULATOR_START_CREDITS: "100000",
      SIMULATOR_LOG: "quiet",
    });
    control = new SimulatorControl(simulator.url);
    const ports = [await freePort(), await freePort()];
    balancer = await startBalancer(ports.map((port) => `http://127.0.0.1:${port}`));
    const appEnv = { DATABASE_URL: db.url, GATEWAY_BASE_URL: simulator.url, PUBLIC_BASE_URL: balancer.url, POLL_STALE_MS: "5000", SUBMIT_RATE_LIMIT: "0" };
    Object.assign(process.env, appEnv);
    for (const port of ports) instances.push(await startAppProcess({ port, env: appEnv }));
    prisma = (await import("@/lib/db")).prisma;
    cronSecret = (await import("@/lib/env")).env.CRON_SECRET!;
  }, 90_000);

  afterAll(async () => {
    for (const instance of instances) await instance.kill();
    simulator?.child.kill("SIGTERM");
    await balancer?.close();
  });

  const submit = (prompt: string) =>
    fetch(`${balancer.url}/api/generations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } }),
    });
  const submitAll = async (marker: string, count: number) => {
    const responses = await Promise.all(Array.from({ length: count }, (_, i) => submit(`harbour ${i} ${marker}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(count).fill(201));
    return Promise.all(responses.map(async (r) => ((await r.json()) as { id: string }).id));
  };
  const allSucceeded = (ids: string[]) =>
    waitFor(async () => (await prisma.generation.count({ where: { id: { in: ids }, state: "SUCCESS" } })) === ids.length, 30_000);
  const servedByEach = () => [...balancer.served.values()];

  test("duplicate callbacks split across both: one transition and one charge per task", async () => {
    const marker = uniqueMarker("dupes");
    await control.scenario({ match: marker, callback: { duplicates: 6 } });
    const ids = await submitAll(marker, 8);
    await allSucceeded(ids);
    // Every copy of every callback answered 200 by one instance or the other.
    const answered = async () => new Set((await control.callbacks(marker)).filter((c) => c.status === 200).map((c) => `${c.taskId}:${c.copy}`)).size;
    await waitFor(async () => (await answered()) === 8 * 7, 45_000);
    const tally = await expectNothingLost({ prisma, simulator: control, marker, ids });
    expect(tally).toMatchObject({ generations: 8, tasks: 8, lost: 0, chargedTwice: 0 });
    const outcomes = await prisma.delivery.groupBy({ by: ["outcome"], where: { generationId: { in: ids } }, _count: true });
    expect(Object.fromEntries(outcomes.map((o) => [o.outcome, o._count]))).toMatchObject({ APPLIED: 8 });
    expect(servedByEach().every((n) => n > 10)).toBe(true);
  }, 90_000);

  test("30 concurrent submissions split across both: 30 tasks, no 5xx, each sent once", async () => {
    const marker = uniqueMarker("thirty");
    const ids = await submitAll(marker, 30);
    expect(new Set(ids).size).toBe(30);
    expect((await control.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(30);
    await allSucceeded(ids);
    await expectNothingLost({ prisma, simulator: control, marker, ids });
  });

  test("50 readers across both on one stale task: one gateway poll in the interval", async () => {
    const marker = uniqueMarker("readers");
    await control.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
    const [id] = await submitAll(marker, 1);
    await prisma.generation.update({ where: { id }, data: { lastHeardAt: new Date(0) } });
    const reads = await Promise.all(Array.from({ length: 50 }, () => fetch(`${balancer.url}/api/generations/${id}`)));
    expect(reads.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect((await control.requests(marker)).filter((r) => r.method === "GET")).toHaveLength(1);
    expect(await prisma.delivery.count({ where: { generationId: id, source: "POLL" } })).toBe(1);
  });

  test("one instance killed mid-storm: the other carries on, nothing lost or charged twice", async () => {
    const marker = uniqueMarker("storm");
    await control.scenario({ match: marker, callback: { duplicates: 3 } });
    const ids = await submitAll(marker, 12);
    // Readers keep both instances busy while the callbacks arrive; one dies among them.
    const readers = Array.from({ length: 40 }, (_, i) =>
      new Promise((resolve) => setTimeout(resolve, i * 25)).then(() => fetch(`${balancer.url}/api/generations?limit=50`).catch(() => null)),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await instances[0]!.kill("SIGKILL");
    await Promise.all(readers);
    const survivor = instances[1]!;
    await waitFor(async () => {
      await fetch(`${survivor.url}/api/cron/reconcile`, { headers: { Authorization: `Bearer ${cronSecret}` } });
      return (await prisma.generation.count({ where: { id: { in: ids }, state: "SUCCESS" } })) === ids.length;
    }, 30_000);
    const tally = await expectNothingLost({ prisma, simulator: control, marker, ids });
    expect(tally).toMatchObject({ generations: 12, lost: 0, chargedTwice: 0, stuckPending: 0 });
    // Whatever the dead instance left unanswered was answered by the other, never with a 5xx.
    const statuses = (await control.callbacks(marker)).map((c) => c.status);
    expect(statuses.filter((s) => typeof s === "number" && s >= 500 && s !== 502)).toEqual([]);
  }, 60_000);
});
