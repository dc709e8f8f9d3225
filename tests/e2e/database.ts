// Direct access to the e2e run's database (SQLite file or PostgreSQL), for
// flows that plant a row as a bug or a hostile gateway might have left it.
import { createClient } from "@libsql/client";
import path from "node:path";
import pg from "pg";
import { databaseEngine } from "../../lib/database/engine";
import { E2E_DATABASE_URL } from "../../playwright.config";

/** How long a planted row waits for the app's write lock (the app holds it for one statement or transaction at a time). */
const LOCK_WAIT_MS = 10_000;

type Statement = [sql: string, args: (string | number | Date)[]];

/** Runs one statement with `?` placeholders against the app's database. */
export async function executeInAppDatabase(sql: string, args: Statement[1]): Promise<void> {
  await executeInAppDatabaseTogether([[sql, args]]);
}

/**
 * Runs statements with `?` placeholders in one transaction: the app sees all
 * of them or none (a planted generation never without its copy row, which the
 * app's copy scheduler would otherwise make for it first).
 */
export async function executeInAppDatabaseTogether(statements: Statement[]): Promise<void> {
  if (databaseEngine(E2E_DATABASE_URL) === "postgres") {
    const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
    await client.connect();
    try {
      await client.query("BEGIN");
      for (const [sql, args] of statements) {
        let n = 0;
        await client.query(sql.replace(/\?/g, () => `$${++n}`), args);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      await client.end();
    }
    return;
  }
  const db = createClient({ url: `file:${path.resolve(E2E_DATABASE_URL.slice("file:".length))}` });
  try {
    // The app is writing for the other tests running beside this one: wait for
    // its write lock to be free, as a second writer must, rather than fail on it.
    await db.execute(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    await db.batch(
      statements.map(([sql, args]) => ({ sql, args: args.map((a) => (a instanceof Date ? a.toISOString() : a)) })),
      "write",
    );
  } finally {
    db.close();
  }
}
