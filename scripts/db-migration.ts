// `npm run db:migration -- <name>`: after editing prisma/models.prisma, writes
// the migration for BOTH engines (lib/database/migrations/migration-diff.ts).
// `--check` writes nothing and fails when either folder does not build the
// models (run by `npm test`). SQLite needs nothing; PostgreSQL uses
// DATABASE_DIRECT_URL when DATABASE_URL is PostgreSQL (it needs the right to
// create databases), else a throwaway server from the system's binaries.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import "./load-env-files";
import { DATABASE_ENGINES, databaseEngine, type DatabaseEngine } from "../lib/database/engine";
import { diffFromMigrations, nextMigrationFolder, writeMigration } from "../lib/database/migrations/migration-diff";
import { env } from "../lib/env";
import { freePort } from "./free-port";
import { startLocalPostgres, type LocalPostgres } from "./local-postgres";

const args = process.argv.slice(2);
const check = args.includes("--check");
const name = args.find((arg) => !arg.startsWith("--"));

async function main() {
  if (!check && !name) fail("usage: npm run db:migration -- <name>   (e.g. add_video_duration)   or   --check");
  if (name && !/^[a-z0-9_]+$/.test(name)) fail(`the name must be snake_case letters, digits and _ (got "${name}")`);

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-migration-"));
  let server: LocalPostgres | undefined;
  try {
    const urls: Record<DatabaseEngine, string> = { sqlite: `file:${path.join(scratch, "scratch.db")}`, postgres: "" };
    if (databaseEngine(env.DATABASE_URL) === "postgres") urls.postgres = env.DATABASE_DIRECT_URL ?? env.DATABASE_URL;
    else {
      server = await startLocalPostgres({ dataDir: path.join(scratch, "postgres"), port: await freePort(), throwaway: true });
      urls.postgres = server.url("postgres");
    }

    const changed = DATABASE_ENGINES.map((engine) => ({ engine, sql: diffFromMigrations(engine, urls[engine]) })).filter(
      (p): p is { engine: DatabaseEngine; sql: string } => p.sql !== undefined,
    );
    if (check) {
      if (changed.length === 0) return console.log("[db:migration] both migration folders build prisma/models.prisma");
      for (const { engine, sql } of changed) console.error(`[db:migration] prisma/${engine}/migrations does not build the models; missing:\n${sql}`);
      fail("run `npm run db:migration -- <name>` to write the missing migrations (prisma/README.md)");
    }
    if (changed.length === 0) return console.log("[db:migration] the models match both engines' migrations: nothing to write");
    const folder = nextMigrationFolder(name!);
    for (const { engine, sql } of changed) console.log(`[db:migration] wrote ${writeMigration(engine, folder, sql)}`);
    console.log("[db:migration] review the SQL, then `npm run db:migrate` applies it to your database");
  } finally {
    await server?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Thrown rather than exiting, so that a throwaway server is always stopped. */
function fail(message: string): never {
  throw new Error(message);
}

main().catch((error) => {
  console.error(`[db:migration] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
