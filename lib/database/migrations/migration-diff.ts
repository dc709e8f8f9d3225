// Writing a migration for both engines: an engine's "previous models" are what
// its committed migrations build. Prisma replays them into a scratch (shadow)
// database and diffs that against prisma/models.prisma.
import fs from "node:fs";
import path from "node:path";
import { DATABASE_ENGINES, schemaFolder, type DatabaseEngine } from "../engine";
import { runPrisma } from "./prisma-cli";
import { migrationsFolder, readMigrations } from "./read-migrations";

/** The SQL that takes engine's committed migrations to the models, or undefined when there is none. */
export function diffFromMigrations(engine: DatabaseEngine, databaseUrl: string): string | undefined {
  const folder = schemaFolder(engine);
  const result = runPrisma(["migrate", "diff", "--from-migrations", `${folder}/migrations`, "--to-schema-datamodel", folder, "--script", "--exit-code"], {
    databaseUrl,
    env: { DATABASE_DIRECT_URL: engine === "postgres" ? databaseUrl : "" },
  });
  if (result.status === 0) return undefined;
  if (result.status !== 2) throw new Error(`prisma migrate diff failed for ${engine}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout
    .split("\n")
    .filter((line) => !line.startsWith("Loaded Prisma config"))
    .join("\n")
    .trimStart();
}

/** Writes sql as the migration `folder` of engine; returns the file's path. */
export function writeMigration(engine: DatabaseEngine, folder: string, sql: string): string {
  const file = path.join(migrationsFolder(engine), folder, "migration.sql");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, sql);
  return file;
}

/** `<UTC yyyymmddhhmmss>_<name>`, after every committed migration of either engine (Prisma applies them in name order). */
export function nextMigrationFolder(name: string, now = new Date()): string {
  const stamp = (date: Date) => date.toISOString().replace(/\D/g, "").slice(0, 14);
  const latest = DATABASE_ENGINES.flatMap((engine) => readMigrations(migrationsFolder(engine)))
    .map((migration) => migration.name.match(/^(\d{14})_/)?.[1])
    .filter((s): s is string => !!s)
    .sort()
    .at(-1);
  if (latest && stamp(now) <= latest) {
    const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((i, k) => Number(latest.slice(i, k === 0 ? 4 : i + 2)));
    now = new Date(Date.UTC(y!, mo! - 1, d, h, mi, s! + 1));
  }
  return `${stamp(now)}_${name}`;
}
