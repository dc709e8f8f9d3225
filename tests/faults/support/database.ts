// The fault suite's databases. Every test file has one of its own
// (tests/support/file-database.ts: fileDatabase() names it). A file that needs
// another, e.g. one per test so that killing instances or locking the database
// in one test never touches the rows the next asserts on, calls
// useFreshDatabase(): a fresh copy of the migrated template, which DATABASE_URL
// then points at.
import fs from "node:fs";
import pg from "pg";
import { databaseEngine } from "@/lib/database/engine";
import { freshTestDatabase, testEngine } from "../../support/test-database";

/** The database this test file was given (tests/support/file-database.ts). */
export function fileDatabase(): { url: string } {
  return { url: process.env.DATABASE_URL! };
}

export function useFreshDatabase(label: string): { url: string } {
  const url = freshTestDatabase(label);
  process.env.DATABASE_URL = url;
  return { url };
}

export type DatabaseLock = { release(): Promise<void> };

/**
 * Holds the database's write lock from another connection, as a migration, a
 * backup or a second instance would: SQLite's BEGIN IMMEDIATE, or on
 * PostgreSQL an EXCLUSIVE lock on the tables a callback or submit writes.
 * The app may hold the lock for one statement or transaction at a time, so
 * this tries again for up to `withinMs`; failing that, the app kept the lock.
 * Release it in `finally` (release is idempotent).
 */
export async function lockDatabaseWrites(url: string, { withinMs = 2_000 } = {}): Promise<DatabaseLock> {
  if (databaseEngine(url) === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`SET lock_timeout = ${Math.max(1, withinMs)}`);
      await client.query(`BEGIN; LOCK TABLE "Generation", "Delivery" IN EXCLUSIVE MODE`);
    } catch (error) {
      await client.end();
      throw error;
    }
    return once(async () => {
      await client.query("ROLLBACK");
      await client.end();
    });
  }
  const { createClient } = await import("@libsql/client");
  const deadline = Date.now() + withinMs;
  for (;;) {
    // A fresh connection per try: with this driver a connection whose
    // BEGIN IMMEDIATE was refused must not run anything else (docs/RELIABILITY.md).
    const client = createClient({ url });
    try {
      await client.execute("BEGIN IMMEDIATE");
    } catch (error) {
      client.close();
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() >= deadline) {
        throw new Error(`another connection could not take the write lock within ${withinMs} ms`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    return once(async () => {
      try {
        await client.execute("ROLLBACK");
      } finally {
        client.close();
      }
    });
  }
}

function once(release: () => Promise<void>): DatabaseLock {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await release();
    },
  };
}

/** True if another connection can take the write lock right now, without waiting. */
export async function canLockAtOnce(url: string): Promise<boolean> {
  const lock = await lockDatabaseWrites(url, { withinMs: 0 }).catch(() => undefined);
  await lock?.release();
  return lock !== undefined;
}

/** Everything the database stores, as text, to search for what must never be stored (secrets). */
export async function storedText(url: string): Promise<string> {
  if (testEngine() === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`);
      const tables = rows.map((row) => row.name);
      const parts = await Promise.all(tables.map((t) => client.query(`SELECT coalesce(string_agg(x::text, E'\\n'), '') AS text FROM "${t}" x`)));
      return parts.map((p) => p.rows[0].text as string).join("\n");
    } finally {
      await client.end();
    }
  }
  const file = url.slice("file:".length);
  return [file, `${file}-wal`].map((part) => (fs.existsSync(part) ? fs.readFileSync(part).toString("latin1") : "")).join("\n");
}
