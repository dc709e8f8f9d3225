// Is the database reachable, and are the committed migrations applied? Reads
// Prisma's own `_prisma_migrations` table with SQL that SQLite and PostgreSQL share.
import fs from "node:fs";
import { databaseEngine } from "@/lib/database/engine";
import { migrationsFolder, readMigrations } from "@/lib/database/migrations/read-migrations";
import { fail, ok, type CheckResult } from "./check";

const NAME = "Database";
const FIX_MIGRATE = "run `npm run db:migrate` (`npm run dev` and `npm start` do it before starting)";

type Query = (sql: string) => Promise<unknown[]>;
type MigrationRow = { migration_name: string; finished_at: unknown; rolled_back_at: unknown };

export async function checkDatabase({ databaseUrl, query, cwd }: { databaseUrl: string; query: Query; cwd?: string }): Promise<CheckResult> {
  const where = describeUrl(databaseUrl);
  if (databaseUrl.startsWith("file:") && !fs.existsSync(databaseUrl.slice("file:".length))) {
    return fail(NAME, `no database file at ${where}`, FIX_MIGRATE);
  }
  try {
    await query("SELECT 1");
  } catch (error) {
    return fail(NAME, `cannot reach ${where}: ${firstLine(error)}`, "check DATABASE_URL (and DATABASE_AUTH_TOKEN for a libSQL server), and that the server is running");
  }
  let rows: MigrationRow[];
  try {
    rows = (await query("SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations")) as MigrationRow[];
  } catch {
    rows = []; // no _prisma_migrations table: nothing was ever migrated
  }
  const applied = new Set(rows.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => r.migration_name));
  const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null).map((r) => r.migration_name);
  if (failed.length > 0) {
    return fail(NAME, `${where}: migration ${failed.join(", ")} started but did not finish`, "restore the database or fix it by hand, then `npx prisma migrate resolve --applied <name>` (see Prisma's docs on failed migrations)");
  }
  const folder = migrationsFolder(databaseEngine(databaseUrl), cwd);
  // A serverless bundle may not ship the migrations folder.
  if (!fs.existsSync(folder)) return ok(NAME, `${where} reachable; ${applied.size} migrations applied (the migrations folder is not here to compare)`);
  const committed = readMigrations(folder).map((migration) => migration.name);
  const pending = committed.filter((name) => !applied.has(name));
  if (pending.length > 0) {
    return fail(NAME, `${where} reachable but ${pending.length} of ${committed.length} migrations pending: ${pending.join(", ")}`, FIX_MIGRATE);
  }
  return ok(NAME, `${where} reachable; all ${committed.length} migrations applied`);
}

/** The URL without credentials or query (a token may sit in either). */
function describeUrl(databaseUrl: string): string {
  if (databaseUrl.startsWith("file:")) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n").find((l) => l.trim()) ?? "unknown error";
