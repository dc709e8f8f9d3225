// The database the tests run against: a fresh SQLite file by default, or with
// TEST_DATABASE=postgres a throwaway PostgreSQL server this harness starts
// itself (system binaries, fsync off) and stops at the end. Both are migrated
// with the committed migrations, the way `npm run db:migrate` does it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { migrateDatabase } from "../../lib/database/migrations/migrate";
import { freePort } from "../../scripts/free-port";
import { adminQuery, findPostgresBin, limitRoleLockWait, startLocalPostgres, type LocalPostgres } from "../../scripts/local-postgres";
import { ensurePrismaClientFor } from "../../lib/database/migrations/prisma-client";

export type TestEngine = "sqlite" | "postgres";

export const testEngine = (): TestEngine => (process.env.TEST_DATABASE === "postgres" ? "postgres" : "sqlite");

/** A migrated PostgreSQL database every test database is copied from (CREATE DATABASE … TEMPLATE: milliseconds). */
const TEMPLATE = "framehook_template";

/**
 * Starts what the engine needs under dir and returns the URL of a migrated
 * database, plus the environment that lets freshTestDatabase() copy it.
 */
export async function startTestDatabase(dir: string): Promise<{ url: string; env: Record<string, string>; stop(): Promise<void> }> {
  if (testEngine() === "sqlite") {
    const template = path.join(dir, "template.db");
    const url = `file:${template}`;
    ensurePrismaClientFor(url);
    await migrateDatabase({ databaseUrl: url, quiet: true });
    return { url, env: { FRAMEHOOK_TEST_SQLITE_TEMPLATE: template }, stop: async () => {} };
  }
  const server: LocalPostgres = await startLocalPostgres({ dataDir: path.join(dir, "postgres"), port: await freePort(), throwaway: true });
  try {
    ensurePrismaClientFor(server.url(TEMPLATE));
    await adminQuery(server.url("postgres"), `CREATE DATABASE "${TEMPLATE}"`);
    await limitRoleLockWait(server.url("postgres"));
    await migrateDatabase({ databaseUrl: server.url(TEMPLATE), quiet: true });
    const env = { FRAMEHOOK_TEST_POSTGRES_PORT: String(server.port) };
    return { url: copyPostgresTemplate("main", env), env, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

let created = 0;
/** A name no other database of this run has: two may be made in one millisecond of one process. */
const uniqueName = (label: string) => `${label.replace(/\W/g, "_")}_${process.pid}_${Date.now().toString(36)}_${++created}`;

/**
 * A fresh migrated database of its own, synchronously, for module top levels:
 * a copy of the template global setup migrated (a file copy on SQLite,
 * CREATE DATABASE … TEMPLATE on PostgreSQL), in milliseconds.
 */
export function freshTestDatabase(label: string, env: Record<string, string | undefined> = process.env): string {
  if (testEngine() === "postgres") return copyPostgresTemplate(label, env);
  const template = env.FRAMEHOOK_TEST_SQLITE_TEMPLATE;
  if (!template) throw new Error("freshTestDatabase needs the template database of tests/support/global-setup.ts");
  const file = path.join(path.dirname(template), `${uniqueName(label)}.db`);
  // No connection is open on the template: its WAL, if any is left, is copied with it.
  for (const suffix of ["", "-wal"]) if (fs.existsSync(template + suffix)) fs.copyFileSync(template + suffix, file + suffix);
  return `file:${file}`;
}

function copyPostgresTemplate(label: string, env: Record<string, string | undefined>): string {
  const port = env.FRAMEHOOK_TEST_POSTGRES_PORT;
  if (!port) throw new Error("freshTestDatabase needs the PostgreSQL server of tests/support/global-setup.ts (TEST_DATABASE=postgres)");
  const name = `test_${uniqueName(label)}`;
  execFileSync(path.join(findPostgresBin()!, "createdb"), ["-h", "127.0.0.1", "-p", port, "-U", "postgres", "-T", TEMPLATE, name]);
  return `postgresql://postgres@127.0.0.1:${port}/${name}`;
}
