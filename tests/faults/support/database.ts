// A database of the fault suite's own: each file gets a fresh migrated
// database (a SQLite file, or with TEST_DATABASE=postgres a copy of the
// migrated template on the harness's server) and points DATABASE_URL at it
// before any of the app's modules load, so that killing instances, locking
// the database or running the cron here never touches the rows other suites
// assert on.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createTestDatabase, testEngine } from "../../support/test-database";

export function useFreshDatabase(label: string): { url: string } {
  const url = testEngine() === "postgres" ? createTestDatabase(label) : freshSqliteFile(label);
  process.env.DATABASE_URL = url;
  return { url };
}

function freshSqliteFile(label: string): string {
  const dir = fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), `faults-${label}-`));
  const url = `file:${path.join(dir, "faults.db")}`;
  const migrate = spawnSync("node_modules/.bin/prisma", ["migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`prisma migrate deploy failed:\n${migrate.stdout}\n${migrate.stderr}`);
  return url;
}

/**
 * Holds the database's write lock from another connection, as a migration, a
 * backup or a second instance would: SQLite's BEGIN IMMEDIATE, or on
 * PostgreSQL an EXCLUSIVE lock on the tables a callback or submit writes.
 */
export async function lockDatabaseWrites(url: string): Promise<{ release(): Promise<void> }> {
  if (testEngine() === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`BEGIN; LOCK TABLE "Generation", "Delivery" IN EXCLUSIVE MODE`);
    return {
      async release() {
        await client.query("ROLLBACK");
        await client.end();
      },
    };
  }
  const { createClient } = await import("@libsql/client");
  const client = createClient({ url });
  await client.execute("BEGIN IMMEDIATE");
  return {
    async release() {
      await client.execute("ROLLBACK");
      client.close();
    },
  };
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
