// Direct access to the e2e run's database (SQLite file or PostgreSQL), for
// flows that plant a row as a bug or a hostile gateway might have left it.
import { createClient } from "@libsql/client";
import path from "node:path";
import pg from "pg";
import { databaseEngine } from "../../lib/database/engine";
import { E2E_DATABASE_URL } from "../../playwright.config";

/** Runs one statement with `?` placeholders against the app's database. */
export async function executeInAppDatabase(sql: string, args: (string | number | Date)[]): Promise<void> {
  if (databaseEngine(E2E_DATABASE_URL) === "postgres") {
    const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
    await client.connect();
    try {
      let n = 0;
      await client.query(sql.replace(/\?/g, () => `$${++n}`), args);
    } finally {
      await client.end();
    }
    return;
  }
  const db = createClient({ url: `file:${path.resolve(E2E_DATABASE_URL.slice("file:".length))}` });
  try {
    // The app writes at the same time (other flows run in parallel): wait for its lock rather than fail.
    await db.execute("PRAGMA busy_timeout = 10000");
    await db.execute({ sql, args: args.map((a) => (a instanceof Date ? a.toISOString() : a)) });
  } finally {
    db.close();
  }
}
