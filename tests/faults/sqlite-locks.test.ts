// The SQLite client (lib/database/sqlite.ts) against another connection's
// write lock, one fault at a time, each on a fresh database: the app's writes
// refused by a lock are waited out, committed once they succeed, and never
// leave the lock behind (docs/RELIABILITY.md, "The write lock the app kept").
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createSqliteDatabase } from "@/lib/database/sqlite";
import { testEngine } from "../support/test-database";
import { canLockAtOnce, lockDatabaseWrites } from "./support/database";

const LOCK_WAIT_MS = 3_000;
const HOLD_MS = 300;
const dir = fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), "sqlite-locks-"));
const template = path.join(dir, "template.db");
const clients: { $disconnect(): Promise<void> }[] = [];

// SQLite's own client on SQLite files; a run on PostgreSQL has generated the
// other engine's Prisma client, which refuses a file: URL.
describe.skipIf(testEngine() === "postgres")("SQLite client", () => {
  beforeAll(async () => {
    // Migrated once (rollback journal, as `prisma migrate deploy` leaves it), copied per test.
    const migrate = spawnSync("node_modules/.bin/prisma", ["migrate", "deploy"], { env: { ...process.env, DATABASE_URL: `file:${template}` }, encoding: "utf8" });
    if (migrate.status !== 0) throw new Error(`prisma migrate deploy failed:\n${migrate.stdout}\n${migrate.stderr}`);
    // Prisma compiles its query engine on the first query: done here, so that
    // the queries below reach SQLite while the lock is still held.
    await freshDatabase().prisma.generation.count();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.$disconnect()));
  });

  /** A migrated database file of the test's own, and a client on it. */
  function freshDatabase() {
    const file = path.join(dir, `${randomUUID()}.db`);
    fs.copyFileSync(template, file);
    const url = `file:${file}`;
    const { prisma } = createSqliteDatabase({ url, lockWaitMs: LOCK_WAIT_MS });
    clients.push(prisma);
    return { url, prisma };
  }

  /** Runs `operation` (started at once) while another connection holds the lock for HOLD_MS. */
  async function duringLock<T>(url: string, operation: () => Promise<T>): Promise<T> {
    const lock = await lockDatabaseWrites(url);
    try {
      // Prisma's queries are lazy: `then` starts this one now, during the lock.
      const pending = operation().then((value) => value);
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      await lock.release();
      return await pending;
    } finally {
      await lock.release();
    }
  }

  async function readCount(url: string, sql: string): Promise<number> {
    const other = createClient({ url });
    try {
      return Number((await other.execute(sql)).rows[0]![0]);
    } finally {
      other.close();
    }
  }

  test("a bare write refused during the lock: waited out, committed, and the lock is free after it", async () => {
    const { url, prisma } = freshDatabase();
    await prisma.generation.create({ data: { model: "m", prompt: "before", ownerId: "lock-test" } });
    const generation = await duringLock(url, () => prisma.generation.create({ data: { model: "m", prompt: "during", ownerId: "lock-test" } }));
    await prisma.delivery.create({ data: { generationId: generation.id, taskId: "t", source: "CALLBACK", outcome: "APPLIED" } });

    // Committed: another connection sees both rows, and can write at once.
    expect(await readCount(url, "SELECT count(*) FROM Generation")).toBe(2);
    expect(await readCount(url, "SELECT count(*) FROM Delivery")).toBe(1);
    expect(await canLockAtOnce(url)).toBe(true);
    // A transaction (updateMany) on the same client commits, and loses nothing.
    expect((await prisma.generation.updateMany({ where: { id: generation.id }, data: { state: "PENDING" } })).count).toBe(1);
    expect(await readCount(url, `SELECT count(*) FROM Generation WHERE state = 'PENDING'`)).toBe(1);
    expect(await readCount(url, "SELECT count(*) FROM Delivery")).toBe(1);
    expect(await canLockAtOnce(url)).toBe(true);
  });

  test("a transaction (updateMany) refused during the lock: waited out, applied once, and the lock is free after it", async () => {
    const { url, prisma } = freshDatabase();
    const { id } = await prisma.generation.create({ data: { model: "m", prompt: "p", ownerId: "lock-test" } });
    const { count } = await duringLock(url, () => prisma.generation.updateMany({ where: { id, state: "SUBMITTING" }, data: { state: "PENDING" } }));
    expect(count).toBe(1);
    expect(await readCount(url, `SELECT count(*) FROM Generation WHERE state = 'PENDING'`)).toBe(1);
    expect(await canLockAtOnce(url)).toBe(true);
  });

  test("a raw write (as the submit rate limit makes) refused during the lock: waited out", async () => {
    const { url, prisma } = freshDatabase();
    await prisma.generation.count();
    const inserted = await duringLock(url, () => prisma.$executeRaw`INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES ('k', ${new Date()}, 1)`);
    expect(inserted).toBe(1);
    expect(await readCount(url, "SELECT count(*) FROM RateLimit")).toBe(1);
    expect(await canLockAtOnce(url)).toBe(true);
  });

  test("the client's first query runs inside an interactive transaction: it does not wait on itself, and sets WAL", async () => {
    const { url, prisma } = freshDatabase();
    // Setting WAL from within the query hook queued it behind the transaction's hold on the connection until the timeout.
    expect(await prisma.$transaction((tx) => tx.generation.count(), { maxWait: 2_000, timeout: 2_000 })).toBe(0);
    const other = createClient({ url });
    try {
      expect((await other.execute("PRAGMA journal_mode")).rows[0]![0]).toBe("wal");
    } finally {
      other.close();
    }
  });

  test("the client's first query meets the lock (the database not yet in WAL mode): waited out, then WAL", async () => {
    const { url, prisma } = freshDatabase();
    const generation = await duringLock(url, () => prisma.generation.create({ data: { model: "m", prompt: "first", ownerId: "lock-test" } }));
    expect(generation.prompt).toBe("first");
    const other = createClient({ url });
    try {
      expect((await other.execute("PRAGMA journal_mode")).rows[0]![0]).toBe("wal");
    } finally {
      other.close();
    }
    expect(await canLockAtOnce(url)).toBe(true);
  });
});
