// `npm run db:migration -- <name>`: after editing prisma/models.prisma, writes
// the migration for BOTH engines. An engine's "previous models" are what its
// committed migrations build: Prisma replays them into a scratch (shadow)
// database and diffs that against the models. `--check` writes nothing and
// fails when either folder does not build the models (run by `npm test`).
// SQLite needs nothing; PostgreSQL uses DATABASE_DIRECT_URL when DATABASE_URL
// is PostgreSQL (it needs the right to create databases), else a throwaway
// server from the system's binaries (scripts/local-postgres.ts).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import "../lib/load-env-files";
import { DATABASE_ENGINES, databaseEngine, schemaFolder, type DatabaseEngine } from "../lib/database/engine";
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

    const pending = DATABASE_ENGINES.map((engine) => ({ engine, sql: diffFromMigrations(engine, urls[engine]) }));
    const changed = pending.filter((p) => p.sql !== undefined);
    if (check) {
      if (changed.length === 0) return console.log("[db:migration] both migration folders build prisma/models.prisma");
      for (const { engine, sql } of changed) console.error(`[db:migration] prisma/${engine}/migrations does not build the models; missing:\n${sql}`);
      fail("run `npm run db:migration -- <name>` to write the missing migrations (README: Changing the schema)");
    }
    if (changed.length === 0) return console.log("[db:migration] the models match both engines' migrations: nothing to write");
    const folder = `${nextTimestamp()}_${name}`;
    for (const { engine, sql } of changed) {
      const file = path.join(schemaFolder(engine), "migrations", folder, "migration.sql");
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, sql!);
      console.log(`[db:migration] wrote ${file}`);
    }
    console.log("[db:migration] review the SQL, then `npm run db:migrate` applies it to your database");
  } finally {
    await server?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The SQL that takes engine's committed migrations to the models, or undefined when there is none. */
function diffFromMigrations(engine: DatabaseEngine, databaseUrl: string): string | undefined {
  const folder = schemaFolder(engine);
  const result = spawnSync(
    path.join(process.cwd(), "node_modules", ".bin", "prisma"),
    ["migrate", "diff", "--from-migrations", `${folder}/migrations`, "--to-schema-datamodel", folder, "--script", "--exit-code"],
    { env: { ...process.env, DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: engine === "postgres" ? databaseUrl : "" }, encoding: "utf8" },
  );
  if (result.status === 0) return undefined;
  if (result.status !== 2) fail(`prisma migrate diff failed for ${engine}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout
    .split("\n")
    .filter((line) => !line.startsWith("Loaded Prisma config"))
    .join("\n")
    .trimStart();
}

/** UTC yyyymmddhhmmss, after every committed migration of either engine (Prisma applies them in name order). */
function nextTimestamp(): string {
  const stamp = (date: Date) => date.toISOString().replace(/\D/g, "").slice(0, 14);
  const latest = DATABASE_ENGINES.flatMap((engine) => fs.readdirSync(path.join(schemaFolder(engine), "migrations")))
    .map((entry) => entry.match(/^(\d{14})_/)?.[1])
    .filter((s): s is string => !!s)
    .sort()
    .at(-1);
  let now = new Date();
  if (latest && stamp(now) <= latest) {
    const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((i, k) => Number(latest.slice(i, k === 0 ? 4 : i + 2)));
    now = new Date(Date.UTC(y!, mo! - 1, d, h, mi, s! + 1));
  }
  return stamp(now);
}

/** Thrown rather than exiting, so that a throwaway server is always stopped. */
function fail(message: string): never {
  throw new Error(message);
}

main().catch((error) => {
  console.error(`[db:migration] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
