// The database unavailable under a running app (`next start`): PostgreSQL's
// server stopped, or SQLite's write lock held by another connection past the
// app's wait. A client must be told to come back (503 with Retry-After, the
// code `database_unavailable`), never a 500 that reads as the app's own bug,
// never a driver's message; nothing is stored, and the app serves again as
// soon as the database does.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { adminQuery, startLocalPostgres, type LocalPostgres } from "../../scripts/local-postgres";
import { migrateDatabase } from "../../lib/database/migrations/migrate";
import { startApp, waitFor } from "../support/app";
import { testEngine } from "../support/test-database";
import { uniqueMarker } from "../support/simulator-control";
import { freePort } from "./support/app-process";
import { lockDatabaseWrites, useFreshDatabase } from "./support/database";

type App = Awaited<ReturnType<typeof startApp>>;

/** A refusal a client can act on: 503, a Retry-After, the app's own code and wording, nothing of the driver's. */
async function expectUnavailable(response: Response) {
  const body = await response.text();
  expect({ status: response.status, retryAfter: response.headers.get("retry-after") }, body).toEqual({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
  expect((JSON.parse(body) as { error: { code: string } }).error.code).toBe("database_unavailable");
  expect(body).not.toMatch(/\bat .+:\d+|ECONN|terminat|Prisma|SQLITE|postgres|lock/i);
}

const submitBody = (prompt: string) => ({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } });

describe.skipIf(testEngine() !== "postgres")("PostgreSQL's server stopped under the app", () => {
  const DATABASE = "dbdown";
  let dataDir: string;
  let postgres: LocalPostgres;
  let app: App;

  beforeAll(async () => {
    // A server of this file's own: it goes down.
    dataDir = path.join(fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), "dbdown-")), "postgres");
    postgres = await startLocalPostgres({ dataDir, port: await freePort(), throwaway: true });
    await adminQuery(postgres.url("postgres"), `CREATE DATABASE "${DATABASE}"`);
    await migrateDatabase({ databaseUrl: postgres.url(DATABASE), quiet: true });
    app = await startApp({ env: { DATABASE_URL: postgres.url(DATABASE), DATABASE_DIRECT_URL: postgres.url(DATABASE), SUBMIT_RATE_LIMIT: "0", MEDIA_STORAGE: "none" } });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await postgres?.stop();
  });

  test("reads, submits and the health check answer 503 with Retry-After while it is down; the same process serves again once it is back", async () => {
    const marker = uniqueMarker("down");
    const created = await app.fetch("/api/generations", { method: "POST", json: submitBody(`before ${marker}`) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };

    await postgres.stop();
    try {
      await expectUnavailable(await app.fetch("/api/generations?limit=5"));
      await expectUnavailable(await app.fetch(`/api/generations/${id}`));
      await expectUnavailable(await app.fetch("/api/generations", { method: "POST", json: submitBody(`during ${marker}`) }));
      expect((await app.fetch("/api/health")).status).toBe(503);
    } finally {
      postgres = await startLocalPostgres({ dataDir, port: postgres.port });
    }

    await waitFor(async () => (await app.fetch(`/api/generations/${id}`)).status === 200, 30_000);
    // The submit refused while the server was down stored nothing, and nothing reached the gateway.
    const list = (await (await app.fetch("/api/generations?limit=50")).json()) as { items: { prompt: string }[] };
    expect(list.items.filter((g) => g.prompt.includes(marker)).map((g) => g.prompt)).toEqual([`before ${marker}`]);
    expect((await app.simulator.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(1);
    expect(app.server.child.exitCode).toBeNull();
  }, 120_000);
});

describe.skipIf(testEngine() === "postgres")("SQLite's write lock held past the app's wait", () => {
  const LOCK_WAIT_MS = 300;
  let db: { url: string };
  let app: App;

  beforeAll(async () => {
    db = useFreshDatabase("dbdown");
    app = await startApp({ env: { DATABASE_LOCK_WAIT_MS: String(LOCK_WAIT_MS), SUBMIT_RATE_LIMIT: "0", MEDIA_STORAGE: "none" } });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  test("a submit answers 503 with Retry-After and stores nothing; once the lock is released it is accepted", async () => {
    const marker = uniqueMarker("locked");
    const { prisma } = await import("@/lib/db");
    await app.fetch("/api/generations?limit=1");
    const lock = await lockDatabaseWrites(db.url);
    try {
      await expectUnavailable(await app.fetch("/api/generations", { method: "POST", json: submitBody(`during ${marker}`) }));
    } finally {
      await lock.release();
    }
    expect(await prisma.generation.count({ where: { prompt: { contains: marker } } })).toBe(0);
    expect(await app.simulator.requests(marker)).toEqual([]);
    const after = await app.fetch("/api/generations", { method: "POST", json: submitBody(`after ${marker}`) });
    expect(after.status).toBe(201);
  }, 60_000);
});
