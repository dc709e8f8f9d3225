// Applies the committed migrations of the engine DATABASE_URL names: with the
// plain-pg runner on PostgreSQL (migrate-postgres.ts, loaded only there), with
// `prisma migrate deploy` on SQLite. Both are safe with several instances
// starting at once and need nothing downloaded.
import { databaseEngine } from "../engine";
import { ensureDatabaseDirectory } from "../sqlite-file";
import { runPrisma } from "./prisma-cli";
import { migrationsFolder } from "./read-migrations";

export async function migrateDatabase({ databaseUrl, directUrl, quiet = false }: { databaseUrl: string; directUrl?: string; quiet?: boolean }) {
  const engine = databaseEngine(databaseUrl);
  if (engine === "postgres") {
    const { migratePostgres } = await import("./migrate-postgres");
    const log = quiet ? undefined : (line: string) => console.log(`[db:migrate] ${line}`);
    const report = await migratePostgres({ url: directUrl ?? databaseUrl, migrationsDir: migrationsFolder(engine), log });
    log?.(`PostgreSQL is up to date (${report.applied.length} applied now, ${report.alreadyApplied} before)`);
    return;
  }
  ensureDatabaseDirectory(databaseUrl);
  const result = runPrisma(["migrate", "deploy"], { databaseUrl, stdio: quiet ? "pipe" : "inherit" });
  if (result.status !== 0) {
    throw new Error(`prisma migrate deploy failed${result.error ? `: ${result.error.message}` : ""}\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  }
}
