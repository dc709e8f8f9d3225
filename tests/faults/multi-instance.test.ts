// Two app instances (`next start`) on one PostgreSQL database behind a
// round-robin balancer, one gateway: what each instance keeps (leases, the
// single writer, idempotency keys, the submission rate limit) lives in the
// database, so the pair behaves as one app. (SQLite is one process on one
// machine: this runs in the PostgreSQL pass.)
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startSimulator } from "../support/global-setup";
import { SimulatorControl, uniqueMarker } from "../support/simulator-control";
import { waitFor } from "../support/app";
import { testEngine } from "../support/test-database";
import { startBalancer } from "./support/balancer";
import { fileDatabase } from "./support/database";
import { freePort, startAppProcess, type AppProcess } from "./support/app-process";
import { expectNothingLost } from "./support/invariants";
import { deliveryOutcomes } from "../support/app-records";

type Prisma = typeof import("@/lib/db").prisma;
/** Submissions per visitor per hour, across both instances: above what the tests before the last one send (every request comes from the balancer's address). */
const RATE_LIMIT = 80;

describe.skipIf(testEngine() !== "postgres")("two instances, one PostgreSQL", () => {
  let prisma: Prisma;
  let cronSecret: string;
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  let control: SimulatorControl;
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  const instances: AppProcess[] = [];
  /** One visitor across both instances (the gallery is per owner): its cookie, as the first answer set it. */
  let cookie = "";
  const visit = (path: string, init: RequestInit = {}) => fetch(`${balancer.url}${path}`, { ...init, headers: { ...init.headers, Cookie: cookie } });

  beforeAll(async () => {
    const db = fileDatabase();
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
    const appEnv = { DATABASE_URL: db.url, GATEWAY_BASE_URL: simulator.url, PUBLIC_BASE_URL: balancer.url, POLL_STALE_MS: "5000", SUBMIT_RATE_LIMIT: String(RATE_LIMIT), SUBMIT_RATE_WINDOW_SECONDS: "3600",
      // The spend ledger on (far above what these tests spend), so that a charge is read from what the app recorded.
      SPEND_LIMIT_CREDITS: "100000" };
    Object.assign(process.env, appEnv);
    for (const port of ports) instances.push(await startAppProcess({ port, env: appEnv }));
    prisma = (await import("@/lib/db")).prisma;
    cronSecret = (await import("@/lib/env")).env.CRON_SECRET!;
    cookie = (await fetch(`${balancer.url}/api/generations?limit=1`)).headers.get("set-cookie")!.split(";")[0]!;
  }, 90_000);

  afterAll(async () => {
    for (const instance of instances) await instance.kill();
    simulator?.child.kill("SIGTERM");
    await balancer?.close();
  });

  const submit = (prompt: string, headers: Record<string, string> = {}) =>
    visit("/api/generations", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } }),
    });
  const submitAll = async (marker: string, count: number) => {
    const responses = await Promise.all(Array.from({ length: count }, (_, i) => submit(`harbour ${i} ${marker}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(count).fill(201));
    return Promise.all(responses.map(async (r) => ((await r.json()) as { id: string }).id));
  };
  // Generous: on a loaded machine 30 tasks' callbacks, and their retries after a busy moment, take their time.
  const allSucceeded = (ids: string[]) =>
    waitFor(async () => (await prisma.generation.count({ where: { id: { in: ids }, state: "SUCCESS" } })) === ids.length, 90_000, `${ids.length} tasks SUCCESS`);
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
  }, 180_000);

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
    const reads = await Promise.all(Array.from({ length: 50 }, () => visit(`/api/generations/${id}`)));
    expect(reads.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect((await control.requests(marker)).filter((r) => r.method === "GET")).toHaveLength(1);
    expect(await prisma.delivery.count({ where: { generationId: id, source: "POLL" } })).toBe(1);
  });

  test("one Idempotency-Key sent to both instances at once: one generation, one gateway task, every answer about it", async () => {
    const marker = uniqueMarker("idem");
    const key = `race-${marker.replace(/\W/g, "")}`;
    const before = { ...Object.fromEntries(balancer.served) };
    const responses = await Promise.all(Array.from({ length: 6 }, () => submit(`lantern ${marker}`, { "Idempotency-Key": key })));
    // The six went to both instances, alternately.
    expect([...balancer.served].every(([target, n]) => n - (before[target] ?? 0) >= 3)).toBe(true);
    const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { id?: string } })));
    // Each answer is the generation itself (201, or its replay) or "still in flight" (409): never a second one.
    expect(answers.every((a) => [200, 201, 409].includes(a.status))).toBe(true);
    const ids = new Set(answers.filter((a) => a.status !== 409).map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(await prisma.generation.count({ where: { prompt: { contains: marker } } })).toBe(1);
    expect((await control.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(1);
  });

  test("an Idempotency-Key sent to one instance, then again to the other: the second replays the first's answer; one row, one gateway task, one charge", async () => {
    const marker = uniqueMarker("replay");
    const key = `replay-${marker.replace(/\W/g, "")}`;
    const spent = async () => ((await (await visit("/api/spend")).json()) as { spend: { used: number } }).spend.used;
    const spentBefore = await spent();
    const submitTo = (instance: AppProcess) =>
      fetch(`${instance.url}/api/generations`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `beacon ${marker}`, duration: 2 } }),
      });

    const first = await submitTo(instances[0]!);
    expect(first.status).toBe(201);
    const answer = (await first.json()) as { id: string; taskId: string };
    await allSucceeded([answer.id]);
    // The other instance has never seen this key: it finds it in the database and answers with the same generation, now done.
    const second = await submitTo(instances[1]!);
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual({ id: answer.id, taskId: answer.taskId, state: "SUCCESS" });

    expect(await prisma.generation.count({ where: { prompt: { contains: marker } } })).toBe(1);
    expect((await control.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(1);
    const [task] = await control.tasks(marker);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: answer.id } });
    expect(row.creditsConsumed).toBeGreaterThan(0);
    expect(row.creditsConsumed).toBe(task!.creditsConsumed);
    expect(await deliveryOutcomes(prisma, answer.id)).toMatchObject({ APPLIED: 1 });
    // The owner's spend ledger grew by that one charge.
    expect((await spent()) - spentBefore).toBeCloseTo(row.creditsConsumed!, 6);
  }, 60_000);

  test("the submission rate limit is one budget across both instances", async () => {
    const marker = uniqueMarker("limit");
    const used = (await prisma.rateLimit.findMany({ where: { key: { startsWith: "submit:" } } })).reduce((sum, row) => sum + row.count, 0);
    const left = RATE_LIMIT - used;
    expect(left).toBeGreaterThan(4);
    const before = { ...Object.fromEntries(balancer.served) };
    const statuses: number[] = [];
    for (let i = 0; i < left + 4; i++) statuses.push((await submit(`quota ${i} ${marker}`)).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(left);
    expect(statuses.slice(left)).toEqual([429, 429, 429, 429]);
    // Both instances counted into one window: each alone would have let more through.
    expect([...balancer.served].every(([target, n]) => n - (before[target] ?? 0) >= 2)).toBe(true);
    expect((await control.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(left);
    // The window is used up: give the tests after this one their budget back.
    await prisma.rateLimit.deleteMany({ where: { key: { startsWith: "submit:" } } });
  }, 60_000);

  test("a share link stopped on one instance is a 404 on the other at its next request: nothing is cached by either", async () => {
    const marker = uniqueMarker("share");
    const [id] = await submitAll(marker, 1);
    await allSucceeded([id!]);
    // Each instance copies results itself (their local folder is the same here).
    await waitFor(async () => (await prisma.mediaCopy.count({ where: { generationId: id!, state: "DONE" } })) === 1, 60_000);
    const [a, b] = instances as [AppProcess, AppProcess];
    const shared = await fetch(`${a.url}/api/generations/${id}/share`, { method: "POST", headers: { Cookie: cookie } });
    expect(shared.status).toBe(200);
    const page = new URL(((await shared.json()) as { url: string }).url).pathname;
    const paths = [page, `${page}/video`, `${page}/embed`];
    // Both serve it (each read once, so that an instance that cached would keep serving it below).
    for (const instance of [a, b]) for (const path of paths) expect([instance.url, path, (await fetch(`${instance.url}${path}`)).status]).toEqual([instance.url, path, 200]);

    expect((await fetch(`${b.url}/api/generations/${id}/share`, { method: "DELETE", headers: { Cookie: cookie } })).status).toBe(204);
    for (const instance of [a, b]) for (const path of paths) expect([instance.url, path, (await fetch(`${instance.url}${path}`)).status]).toEqual([instance.url, path, 404]);
  }, 90_000);

  test("one instance killed mid-storm: the other carries on, nothing lost or charged twice", async () => {
    const marker = uniqueMarker("storm");
    await control.scenario({ match: marker, callback: { duplicates: 3 } });
    const ids = await submitAll(marker, 12);
    // Readers keep both instances busy while the callbacks arrive; one dies among them.
    const readers = Array.from({ length: 40 }, (_, i) =>
      new Promise((resolve) => setTimeout(resolve, i * 25)).then(() => visit("/api/generations?limit=50").catch(() => null)),
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
