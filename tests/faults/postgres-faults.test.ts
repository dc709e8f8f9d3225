// The app's PostgreSQL client (lib/database/postgres.ts) against the faults a
// PostgreSQL server has in production, the counterpart of the SQLite client's
// sqlite-locks and database-locked-repeatedly: a pool too small for the load,
// the server restarted while submissions and callbacks are in flight, and the
// app's connections terminated under it. Each time the app (`next start`) must
// answer every request, serve again without being restarted, and leave what
// an operator checks whole: every generation ended, every SUCCESS with
// exactly one APPLIED delivery and the gateway's charge (docs/RELIABILITY.md).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { adminQuery, limitRoleLockWait, startLocalPostgres, type LocalPostgres } from "../../scripts/local-postgres";
import { migrateDatabase } from "../../lib/database/migrations/migrate";
import { startApp, waitFor } from "../support/app";
import { testEngine } from "../support/test-database";
import { uniqueMarker } from "../support/simulator-control";
import { freePort } from "./support/app-process";
import { expectNothingLost } from "./support/invariants";

type Prisma = typeof import("@/lib/db").prisma;
type App = Awaited<ReturnType<typeof startApp>>;

/** The app's pool: far fewer connections than concurrent requests. */
const POOL_MAX = 2;
/** The pool's connections carry this name, to tell them from the event bus's and this test's own. */
const POOL_NAME = "framehook-pool";
const DATABASE = "pgfaults";
/** Longer than the pool's 10 s wait for a connection: a request still unanswered by then hangs. */
const REQUEST_TIMEOUT_MS = 30_000;

/** What each request was answered: an HTTP status, or "timeout" / "error" (no answer). */
type Answer = { status: number | "timeout" | "error"; body: string };

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { status: (error as Error).name === "TimeoutError" ? "timeout" : "error", body: String(error) };
  }
}

/** How many of each, e.g. statuses { 201: 78, 500: 2 }. */
function tally(values: (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
const statuses = (answers: { status: number | string }[]) => tally(answers.map((a) => a.status));

/**
 * Every request answered: 2xx, or a refusal the client can act on: 429, or
 * 503 in the app's own JSON (`database_unavailable` and the like), never a
 * 500 that reads as the app's own bug, a stack trace or a driver's message,
 * never no answer at all.
 */
function expectEachAnsweredCleanly(answers: Answer[]) {
  const unclear = answers.filter(({ status, body }) => {
    if (typeof status !== "number") return true;
    if ((status >= 200 && status < 300) || status === 429) return false;
    if (status !== 503) return true;
    const code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
    return !code?.endsWith("_unavailable") || /\bat .+:\d+|Error:|ECONN|terminat|Prisma/i.test(body);
  });
  expect(unclear.map(({ status, body }) => `${status} ${body.slice(0, 200)}`)).toEqual([]);
}

describe.skipIf(testEngine() !== "postgres")("the app on PostgreSQL: a small pool, a restarted server, terminated connections", () => {
  let postgres: LocalPostgres;
  let dataDir: string;
  let app: App;
  let prisma: Prisma;

  beforeAll(async () => {
    // A server of this file's own: the harness's is shared with every other file, and this one goes down.
    dataDir = path.join(fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), "pgfaults-")), "postgres");
    postgres = await startLocalPostgres({ dataDir, port: await freePort(), throwaway: true });
    await adminQuery(postgres.url("postgres"), `CREATE DATABASE "${DATABASE}"`);
    await limitRoleLockWait(postgres.url("postgres"));
    await migrateDatabase({ databaseUrl: postgres.url(DATABASE), quiet: true });
    app = await startApp({
      env: {
        DATABASE_URL: `${postgres.url(DATABASE)}?application_name=${POOL_NAME}`,
        // The event bus's LISTEN connection, named by the bus itself.
        DATABASE_DIRECT_URL: postgres.url(DATABASE),
        DATABASE_POOL_MAX: String(POOL_MAX),
        SUBMIT_RATE_LIMIT: "0",
        MEDIA_STORAGE: "none",
        // No poll competes with the callbacks: what completes a task here is its callback.
        POLL_STALE_MS: "600000",
      },
      simulatorEnv: {
        SIMULATOR_START_CREDITS: "100000",
        // A callback refused during a fault is sent again: 200 ms, 400 ms, … up to ~50 s in all.
        SIMULATOR_CALLBACK_RETRIES: "8",
        SIMULATOR_CALLBACK_BACKOFF_MS: "200",
        SIMULATOR_CALLBACK_TIMEOUT_MS: "15000",
      },
    });
    // This process's own client, unnamed: only the app's connections carry POOL_NAME.
    process.env.DATABASE_URL = postgres.url(DATABASE);
    prisma = (await import("@/lib/db")).prisma;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await postgres?.stop();
  });

  /** A visitor's submit of `prompt`, answered or not; `key` makes a resend the same submission. */
  async function submit(cookie: string, prompt: string, key?: string): Promise<Answer> {
    return send(`${app.baseUrl}/api/generations`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie, ...(key ? { "Idempotency-Key": key } : {}) },
      body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } }),
    });
  }

  async function visitorCookie(): Promise<string> {
    return (await fetch(`${app.baseUrl}/api/generations?limit=1`)).headers.get("set-cookie")!.split(";")[0]!;
  }

  /** The ids of every generation the marker's prompts made, however their submit was answered. */
  async function generationIds(marker: string): Promise<string[]> {
    const rows = await prisma.generation.findMany({ where: { prompt: { contains: marker } }, select: { id: true } });
    return rows.map((row) => row.id);
  }

  /** Waits until none of the marker's generations is SUBMITTING or PENDING any more. */
  async function waitUntilAllEnded(marker: string, timeoutMs = 90_000) {
    await waitFor(async () => (await prisma.generation.count({ where: { prompt: { contains: marker }, state: { in: ["SUBMITTING", "PENDING"] } } })) === 0, timeoutMs);
  }

  /**
   * What an operator checks afterwards: nothing lost or charged twice (the
   * app's credits are the gateway's), and each SUCCESS complete: its task,
   * results and completion time stored, exactly one APPLIED delivery.
   */
  async function expectWholeRows(marker: string) {
    const ids = await generationIds(marker);
    await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });
    const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, include: { deliveries: true } });
    const incomplete = rows
      .filter((row) => row.state === "SUCCESS")
      .filter((row) => row.deliveries.filter((d) => d.outcome === "APPLIED").length !== 1 || !row.taskId || !row.completedAt || !row.resultUrls)
      .map((row) => `${row.id}: task ${row.taskId}, completed ${row.completedAt?.toISOString()}, deliveries ${row.deliveries.map((d) => d.outcome).join(", ")}`);
    expect(incomplete).toEqual([]);
    return rows;
  }

  /** Milliseconds until /api/health answers 200 again (the app is not restarted). */
  async function timeToHealthy(): Promise<number> {
    const started = Date.now();
    await waitFor(async () => (await send(`${app.baseUrl}/api/health`)).status === 200, 30_000);
    return Date.now() - started;
  }

  /** The app's pool connections open on the server right now. */
  async function poolConnections(client: pg.Client): Promise<number> {
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2", [DATABASE, POOL_NAME]);
    return rows[0]!.n;
  }

  test(`a pool of ${POOL_MAX} connections under 80 concurrent submits, their callbacks and 40 reads: every request answered, every generation ended, each SUCCESS applied once`, async () => {
    const marker = uniqueMarker("pool");
    await app.simulator.scenario({ match: marker, pendingMs: 300, callback: { duplicates: 1 } });
    const cookies = await Promise.all(Array.from({ length: 8 }, visitorCookie));

    // Watches the server's side of the pool while the storm lasts.
    const watcher = new pg.Client({ connectionString: postgres.url(DATABASE) });
    await watcher.connect();
    let mostConnections = 0;
    let storming = true;
    const watching = (async () => {
      while (storming) {
        mostConnections = Math.max(mostConnections, await poolConnections(watcher));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const started = Date.now();
    const submits = Array.from({ length: 80 }, (_, i) => submit(cookies[i % cookies.length]!, `pool ${i} ${marker}`));
    const reads = Array.from({ length: 40 }, (_, i) => send(`${app.baseUrl}${i % 2 ? "/api/health" : "/api/generations?limit=20"}`, { headers: { Cookie: cookies[i % cookies.length]! } }));
    const answers = await Promise.all([...submits, ...reads]);
    const answeredInMs = Date.now() - started;
    // The callbacks (2 copies each) arrive while the submits are answered, and after.
    await waitUntilAllEnded(marker);
    storming = false;
    await watching;
    await watcher.end();

    expectEachAnsweredCleanly(answers);
    const callbacks = await app.simulator.callbacks(marker);
    const rows = await expectWholeRows(marker);
    // The pool never grew past its size: the storm queued for connections.
    expect(mostConnections).toBeLessThanOrEqual(POOL_MAX);
    // Each submit the app accepted became a task the gateway ran to SUCCESS.
    expect(rows.filter((row) => row.state === "SUCCESS")).toHaveLength(answers.slice(0, 80).filter((a) => a.status === 201).length);
    console.log(
      `[pool] ${answers.length} requests in ${answeredInMs} ms: submits ${JSON.stringify(statuses(answers.slice(0, 80)))}, reads ${JSON.stringify(statuses(answers.slice(80)))}; ` +
        `callback attempts ${JSON.stringify(statuses(callbacks))}; ` +
        `states ${JSON.stringify(tally(rows.map((r) => r.state)))}; most pool connections ${mostConnections}`,
    );
  }, 180_000);

  test("PostgreSQL restarted (fast shutdown) while 60 submits and their callbacks are in flight: the app serves again unrestarted, every task completes, each applied once", async () => {
    const marker = uniqueMarker("restart");
    await app.simulator.scenario({ match: marker, pendingMs: 400 });
    const cookie = await visitorCookie();
    const attempts: Answer[] = [];
    let accepted = 0;
    let restart: Promise<{ recoveredInMs: number; downMs: number }> | undefined;

    /** A client that sends its submit again (same Idempotency-Key) until it is answered 201. */
    const submitUntilAccepted = async (i: number) => {
      for (let attempt = 0; attempt < 120; attempt++) {
        const answer = await submit(cookie, `restart ${i} ${marker}`, `restart-${marker.replace(/\W/g, "")}-${i}`);
        attempts.push(answer);
        if (answer.status === 201) {
          // Once two thirds are in (the second wave submitting, the first one's callbacks arriving), the server goes down.
          if (++accepted === 40) restart = restartPostgres();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`submit ${i} was never accepted`);
    };
    const restartPostgres = async () => {
      const down = Date.now();
      // A fast shutdown (pg_ctl -m fast): sessions are cut mid-statement, then the server comes back on the same data and port.
      await postgres.stop();
      postgres = await startLocalPostgres({ dataDir, port: postgres.port });
      const downMs = Date.now() - down;
      return { downMs, recoveredInMs: await timeToHealthy() };
    };

    // Two waves of 30, so that submits are still arriving when the server goes down.
    await Promise.all(Array.from({ length: 30 }, (_, i) => submitUntilAccepted(i)));
    await Promise.all(Array.from({ length: 30 }, (_, i) => submitUntilAccepted(30 + i)));
    expect(restart).toBeDefined();
    const { downMs, recoveredInMs } = await restart!;
    await waitUntilAllEnded(marker);

    // Health answers 200 again from the same process.
    expect((await send(`${app.baseUrl}/api/health`)).status).toBe(200);
    expect(app.server.child.exitCode).toBeNull();
    expectEachAnsweredCleanly(attempts);
    const rows = await expectWholeRows(marker);
    expect(rows.filter((row) => row.state === "SUCCESS")).toHaveLength(60);
    const callbacks = await app.simulator.callbacks(marker);
    // The restart did cut requests off: submits or callbacks were answered non-2xx and sent again.
    const refused = attempts.filter((a) => a.status !== 201).length + callbacks.filter((c) => c.status !== 200).length;
    expect(refused).toBeGreaterThan(0);
    console.log(
      `[restart] server down ${downMs} ms, app healthy ${recoveredInMs} ms after it was back; submit attempts ${JSON.stringify(statuses(attempts))}; ` +
        `callback attempts ${JSON.stringify(statuses(callbacks))}`,
    );
  }, 240_000);

  test("the app's connections terminated (pg_terminate_backend) 3 times during a storm of 180 callbacks: the app recovers unrestarted, every task completes exactly once", async () => {
    const marker = uniqueMarker("terminate");
    // 60 tasks finishing together, each callback sent 3 times at once: a storm on 2 connections.
    await app.simulator.scenario({ match: marker, pendingMs: 2_000, callback: { duplicates: 2 } });
    const cookie = await visitorCookie();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => submit(cookie, `terminate ${i} ${marker}`)));
    expect(statuses(answers)).toEqual({ 201: 60 });

    // Once the first callbacks are in, cut the app's sessions: the busy ones mid-query, the idle ones in the pool.
    await waitFor(async () => (await app.simulator.callbacks(marker)).length >= 20, 30_000);
    const admin = new pg.Client({ connectionString: postgres.url("postgres") });
    await admin.connect();
    let terminated = 0;
    for (let round = 0; round < 3; round++) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [DATABASE],
      );
      terminated += rows[0]!.n;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await admin.end();
    const recoveredInMs = await timeToHealthy();
    await waitUntilAllEnded(marker);

    expect(terminated).toBeGreaterThan(0);
    expect(app.server.child.exitCode).toBeNull();
    const rows = await expectWholeRows(marker);
    expect(rows.filter((row) => row.state === "SUCCESS")).toHaveLength(60);
    const callbacks = await app.simulator.callbacks(marker);
    console.log(
      `[terminate] ${terminated} sessions terminated in 3 rounds; app healthy ${recoveredInMs} ms after; ` +
        `callback attempts ${JSON.stringify(statuses(callbacks))}`,
    );
  }, 180_000);
});
