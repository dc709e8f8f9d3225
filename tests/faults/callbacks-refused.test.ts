// The app failing its callbacks for a while — answering 5xx, answering too
// slowly, or its database locked — and the gateway's retries carrying every
// outcome through exactly once.
import { afterAll, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";
import { fileDatabase, lockDatabaseWrites } from "./support/database";
import { startFaultProxy } from "./support/fault-proxy";
import { expectNothingLost } from "./support/invariants";

const db = fileDatabase();
/** Per generation: how many deliveries to fail with 503. */
const failFirst = new Map<string, number>();
/** Generations whose first delivery is held until the gateway's retry has been answered. */
const holdFirst = new Set<string>();
const releaseHeld = new Map<string, () => void>();
const proxy = await startFaultProxy(({ path }) => {
  const token = new URL(path, "http://x").searchParams.get("token") ?? "";
  const id = token.slice(0, token.lastIndexOf("."));
  const fails = failFirst.get(id) ?? 0;
  if (fails > 0) {
    failFirst.set(id, fails - 1);
    return { fail: 503 };
  }
  if (holdFirst.delete(id)) {
    // Held past the gateway's timeout for certain: until its retry landed.
    return { hold: new Promise<void>((resolve) => releaseHeld.set(id, resolve)) };
  }
  const release = releaseHeld.get(id);
  releaseHeld.delete(id);
  return { onAnswered: release };
});
const app = await startApp({
  env: { PUBLIC_BASE_URL: proxy.url },
  simulatorEnv: { SIMULATOR_CALLBACK_RETRIES: "6", SIMULATOR_CALLBACK_BACKOFF_MS: "150", SIMULATOR_CALLBACK_TIMEOUT_MS: "400", SIMULATOR_START_CREDITS: "1000" },
});
proxy.setTarget(app.baseUrl);
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await proxy.close();
});

/** Submits `count` tasks whose callbacks the simulator delivers; `before` runs on each id first. */
async function submitMany(label: string, count: number, before: (id: string) => void = () => {}, callback?: { timeoutMs: number }) {
  const marker = uniqueMarker(label);
  // Pending long enough to arm the proxy for each generation before its
  // callback, even when a loaded machine makes the submits slow.
  await app.simulator.scenario({ match: marker, pendingMs: 2_000, callback });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { status, body } = await submitPrompt(app, `reed ${i} ${marker}`);
    expect(status).toBe(201);
    before(body.id as string);
    ids.push(body.id as string);
  }
  return { marker, ids };
}
const allDone = (ids: string[]) =>
  waitFor(async () => (await prisma.generation.count({ where: { id: { in: ids }, state: "SUCCESS" } })) === ids.length, 20_000);

test.each([1, 2, 3])("answered 503 %i times, then accepted on the gateway's retry: one transition, one charge", async (failures) => {
  // A timeout far above any answer's time: the attempts are exactly the 503s and the 200.
  const { marker, ids } = await submitMany(`5xx-${failures}`, 3, (id) => failFirst.set(id, failures), { timeoutMs: 10_000 });
  await allDone(ids);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });
  // The app stores the outcome before its 200 reaches the gateway: wait for the gateway to have heard every 200.
  const attempts = await waitFor(async () => {
    const recorded = await app.simulator.callbacks(marker);
    return recorded.filter((a) => a.status === 200).length === ids.length && recorded;
  });
  for (const task of await app.simulator.tasks(marker)) {
    expect(attempts.filter((a) => a.taskId === task.taskId).map((a) => a.status)).toEqual([...Array(failures).fill(503), 200]);
  }
});

test("answered too slowly (the gateway times out and retries while the first delivery lands): one transition", async () => {
  const { marker, ids } = await submitMany("slow", 3, (id) => holdFirst.add(id), { timeoutMs: 3_000 });
  await allDone(ids);
  // The held first deliveries land once the retries did.
  const duplicates = () => prisma.delivery.count({ where: { generationId: { in: ids }, outcome: "DUPLICATE" } });
  await waitFor(async () => (await duplicates()) === 3, 15_000);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });
  const outcomes = await prisma.delivery.groupBy({ by: ["outcome"], where: { generationId: { in: ids } }, _count: true });
  expect(Object.fromEntries(outcomes.map((o) => [o.outcome, o._count]))).toEqual({ APPLIED: 3, DUPLICATE: 3 });
  expect((await app.simulator.callbacks(marker)).filter((a) => a.status === "timeout")).toHaveLength(3);
});

test.each([1, 2, 3])("round %i: database locked 1.5 s while callbacks and a submit arrive: nothing lost, nothing charged twice", async () => {
  const { marker, ids } = await submitMany("locked", 4);
  const lock = await lockDatabaseWrites(db.url);
  let during: Awaited<ReturnType<typeof submitPrompt>>;
  try {
    const started = Date.now();
    during = await submitPrompt(app, `reed late ${marker}`);
    const waited = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_500 - waited)));
  } finally {
    await lock.release();
  }
  if (during.status === 201) ids.push(during.body.id as string);
  else {
    // Refused during the lock: an outage to wait out (503, Retry-After), and
    // nothing may have been stored or sent.
    expect(during.status).toBe(503);
    expect((during.body.error as { code: string }).code).toBe("database_unavailable");
    expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await prisma.generation.count({ where: { prompt: `reed late ${marker}` } })).toBe(0);
    expect((await app.simulator.requests(`reed late ${marker}`)).length).toBe(0);
  }
  await allDone(ids);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });
  // No delivery was ever answered with an error: the app waited out the lock.
  // (Deliveries may time out on the gateway's side meanwhile; each outcome is
  // still applied once, which expectNothingLost checked.)
  const statuses = (await app.simulator.callbacks(marker)).map((a) => a.status);
  expect(statuses.filter((status) => typeof status === "number" && status !== 200)).toEqual([]);
});

// The app waits out a short lock (lib/database/sqlite.ts retries SQLITE_BUSY without
// blocking the event loop) instead of failing: the submit succeeds, and no
// callback is ever answered with an error. (A delivery may still time out on
// the gateway's side, 400 ms here, while the app waits; its retry is a duplicate.)
test("a lock shorter than the wait is waited out: the submit is 201 and no callback is answered with an error", async () => {
  const { marker, ids } = await submitMany("waited", 2);
  const lock = await lockDatabaseWrites(db.url);
  let answered: Awaited<ReturnType<typeof submitPrompt>>;
  try {
    const during = submitPrompt(app, `reed waited ${marker}`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await lock.release();
    answered = await during;
  } finally {
    await lock.release();
  }
  expect(answered.status).toBe(201);
  ids.push(answered.body.id as string);
  await allDone(ids);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });
  const statuses = (await app.simulator.callbacks(marker)).map((a) => a.status);
  expect(statuses.filter((status) => typeof status === "number" && status !== 200)).toEqual([]);
});

test("database locked past the wait: no callback is acknowledged before the write is made, and a retry after the lock applies it", async () => {
  const marker = uniqueMarker("busy");
  await app.simulator.scenario({ match: marker, pendingMs: 300, callback: { retries: 6, backoffMs: 1_000 } });
  const { body } = await submitPrompt(app, `reed busy ${marker}`);
  const lock = await lockDatabaseWrites(db.url);
  try {
    await new Promise((resolve) => setTimeout(resolve, 6_500));
  } finally {
    await lock.release();
  }
  const released = Date.now();
  const id = body.id as string;
  await allDone([id]);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids: [id] });
  await waitFor(async () => (await app.simulator.callbacks(marker)).at(-1)?.status === 200, 15_000);
  const attempts = await app.simulator.callbacks(marker);
  // Nothing was acknowledged while the write could not be made.
  expect(attempts.filter((a) => (a.at ?? 0) < released && a.status === 200)).toEqual([]);
  const outcomes = await prisma.delivery.findMany({ where: { generationId: id, outcome: "APPLIED" } });
  expect(outcomes).toHaveLength(1);
}, 30_000);
