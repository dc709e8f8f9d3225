// Applies the committed migrations of the engine DATABASE_URL names: with the
// plain-pg runner on PostgreSQL (lib/database/migrate-postgres.ts), with
// `prisma migrate deploy` on SQLite. Both are safe with several instances
// starting at once and need nothing downloaded.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { databaseEngine, schemaFolder } from "../lib/database/engine";
import { ensureDatabaseDirectory } from "../lib/database/sqlite-file";
import { migratePostgres } from "../lib/database/migrate-postgres";

export async function migrateDatabase({ databaseUrl, directUrl, quiet = false }: { databaseUrl: string; directUrl?: string; quiet?: boolean }) {
  const engine = databaseEngine(databaseUrl);
  if (engine === "postgres") {
    const log = quiet ? undefined : (line: string) => console.log(`[db:migrate] ${line}`);
    const report = await migratePostgres({ url: directUrl ?? databaseUrl, migrationsDir: `${schemaFolder(engine)}/migrations`, log });
    log?.(`PostgreSQL is up to date (${report.applied.length} applied now, ${report.alreadyApplied} before)`);
    return;
  }
  ensureDatabaseDirectory(databaseUrl);
  const result = spawnSync(path.join(process.cwd(), "node_modules", ".bin", "prisma"), ["migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: quiet ? "pipe" : "inherit",
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`prisma migrate deploy failed${result.error ? `: ${result.error.message}` : ""}\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  }
}
