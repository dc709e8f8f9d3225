// Another connection taking SQLite's write lock again and again (a backup
// every few seconds, Litestream, a migration on a running app) while
// callbacks and submits arrive: the app must never keep the lock after one,
// and must lose nothing (docs/RELIABILITY.md, "The write lock the app kept").
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { testEngine } from "../support/test-database";
import { uniqueMarker } from "../support/simulator-control";
import { lockDatabaseWrites, useFreshDatabase, type DatabaseLock } from "./support/database";
import { expectNothingLost } from "./support/invariants";

/** How long the app waits out a lock: short here, so that 50 locks around it take seconds. */
const LOCK_WAIT_MS = 300;
const ROUNDS = 50;

/** A seeded generator (mulberry32): the same lock lengths on every run. */
function seededRandom(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The fault is SQLite's (its driver's statements refused by a lock); on
// PostgreSQL, locks from another connection are covered by callbacks-refused.
// Nothing is started on PostgreSQL: a file whose tests are all skipped runs no
// hooks, so an app started at its top level would never be closed.
describe.skipIf(testEngine() === "postgres")("SQLite's write lock taken again and again", () => {
  let db: { url: string };
  let app: Awaited<ReturnType<typeof startApp>>;
  let prisma: typeof import("@/lib/db").prisma;

  beforeAll(async () => {
    db = useFreshDatabase("locks");
    app = await startApp({
      env: { DATABASE_LOCK_WAIT_MS: String(LOCK_WAIT_MS), SUBMIT_RATE_LIMIT: "1000" },
      simulatorEnv: {
        SIMULATOR_CALLBACK_RETRIES: "10",
        SIMULATOR_CALLBACK_BACKOFF_MS: "100",
        SIMULATOR_CALLBACK_TIMEOUT_MS: "3000",
        SIMULATOR_START_CREDITS: "100000",
      },
    });
    ({ prisma } = await import("@/lib/db"));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  test(`${ROUNDS} locks from another connection, shorter and longer than the wait, while callbacks and submits arrive: the app never keeps the lock, nothing lost or charged twice`, async () => {
    const random = seededRandom(19);
    const marker = uniqueMarker("locks");
    await app.simulator.scenario({ match: marker, pendingMs: 150 });
    const submits: ReturnType<typeof submitPrompt>[] = [];
    let lock: DatabaseLock | undefined;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // Taken within 2 s, or the app kept the lock after its last statement.
        lock = await lockDatabaseWrites(db.url);
        const length = LOCK_WAIT_MS * (0.2 + 1.8 * random()); // 60–600 ms: waited out, or not
        const arrival = length * random();
        submits.push(sleep(arrival).then(() => submitPrompt(app, `reed ${round} ${marker}`)));
        await sleep(length);
        await lock.release();
        await sleep(50 * random());
      }
    } finally {
      await lock?.release();
    }

    // A submit refused during a lock answers 503 with Retry-After (never a 2xx for nothing stored, never a 500).
    const answered = await Promise.all(submits);
    expect(answered.filter(({ status }) => status !== 201 && status !== 503).map(({ status }) => status)).toEqual([]);
    expect(answered.filter(({ status, headers }) => status === 503 && !headers.get("retry-after"))).toEqual([]);
    expect(answered.filter(({ status }) => status === 201).length).toBeGreaterThan(0);

    // Every generation the storm left ends, each task applied once, credits equal.
    const rows = () => prisma.generation.findMany({ where: { prompt: { contains: marker } }, select: { id: true, state: true } });
    await waitFor(async () => (await rows()).every((row) => row.state !== "PENDING" && row.state !== "SUBMITTING"), 45_000);
    const ids = (await rows()).map((row) => row.id);
    for (const { status, body } of answered) if (status === 201) expect(ids).toContain(body.id);
    await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });

    // The storm is over: the lock is free within 2 s (a write of the app's own
    // may still hold it a moment: a copy job, a callback's retry; a transaction
    // it left open would hold it for good), and what it wrote is committed
    // (visible to another connection), not held in a transaction of its own.
    await (await lockDatabaseWrites(db.url)).release();
    const other = createClient({ url: db.url });
    try {
      const placeholders = ids.map(() => "?").join(",");
      const seen = await other.execute({ sql: `SELECT count(*) AS n FROM Delivery WHERE generationId IN (${placeholders})`, args: ids });
      expect(Number(seen.rows[0]!.n)).toBe(await prisma.delivery.count({ where: { generationId: { in: ids } } }));
    } finally {
      other.close();
    }
  }, 120_000);
});
