// What /api/ready answers: whether a proxy or an orchestrator should send this
// instance traffic. Each check is named in the answer with a short verdict
// (never an address, a variable's value or an error's text: those go to the
// log): the instance is not stopping, the database answers, its migrations
// are the ones this build ships, and the media store takes a write. Checks
// that passed are remembered for a while (migrations for good: a build's
// set never changes), so that a probe every few seconds costs one `SELECT 1`.
import "server-only";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Readable } from "node:stream";
import { databaseEngine } from "@/lib/database/engine";
import { migrationsFolder, readMigrations } from "@/lib/database/migrations/read-migrations";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { isDraining } from "@/lib/lifecycle/drain";
import { getMediaStorage } from "@/lib/storage/storage";

export type ReadinessCheck = "shutdown" | "database" | "migrations" | "storage";
export type Readiness = { ready: boolean; failed?: ReadinessCheck; checks: Record<ReadinessCheck, string> };

/** How long a store that took a write is trusted to take the next. */
const STORAGE_OK_MS = 30_000;

const globalForReadiness = globalThis as unknown as { framehookReadiness?: { migrationsCurrent: boolean; storageOkUntil: number } };
const remembered = (globalForReadiness.framehookReadiness ??= { migrationsCurrent: false, storageOkUntil: 0 });

export async function checkReadiness(): Promise<Readiness> {
  const checks: Record<ReadinessCheck, string> = { shutdown: "running", database: "not checked", migrations: "not checked", storage: "not checked" };
  const verdict = (failed?: ReadinessCheck): Readiness => ({ ready: !failed, ...(failed ? { failed } : {}), checks });

  if (isDraining()) return (checks.shutdown = "draining"), verdict("shutdown");

  try {
    await prisma.$queryRawUnsafe("SELECT 1");
    checks.database = "ok";
  } catch (error) {
    console.error("[framehook] readiness: the database did not answer", error);
    return (checks.database = "unreachable"), verdict("database");
  }

  const migrations = await pendingMigrations();
  checks.migrations = migrations;
  if (migrations !== "ok") return verdict("migrations");

  const storage = await storageTakesWrites();
  checks.storage = storage;
  if (storage !== "ok" && storage !== "off") return verdict("storage");
  return verdict();
}

/** "ok", or what is wrong: the build's migrations not all applied (the migration job has not run), or one left half-done. */
async function pendingMigrations(): Promise<string> {
  if (remembered.migrationsCurrent) return "ok";
  const folder = migrationsFolder(databaseEngine(env.DATABASE_URL));
  if (!fs.existsSync(folder)) return "migrations folder missing from this build";
  const shipped = readMigrations(folder).map((migration) => migration.name);
  let rows: { migration_name: string; finished_at: unknown; rolled_back_at: unknown }[];
  try {
    rows = await prisma.$queryRawUnsafe("SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations");
  } catch {
    return `${shipped.length} of ${shipped.length} pending`; // no _prisma_migrations table: never migrated
  }
  if (rows.some((row) => row.finished_at === null && row.rolled_back_at === null)) return "a migration started but did not finish";
  const applied = new Set(rows.filter((row) => row.finished_at !== null && row.rolled_back_at === null).map((row) => row.migration_name));
  const pending = shipped.filter((name) => !applied.has(name)).length;
  if (pending > 0) return `${pending} of ${shipped.length} pending`;
  remembered.migrationsCurrent = true;
  return "ok";
}

/** "ok" when a small object could be written and deleted, "off" with MEDIA_STORAGE=none, else "not writable". */
async function storageTakesWrites(): Promise<string> {
  if (Date.now() < remembered.storageOkUntil) return "ok";
  try {
    const storage = await getMediaStorage();
    if (!storage) return "off";
    const key = `readiness/${randomUUID()}`;
    await storage.put({ key, body: Readable.from([Buffer.from("ready")]), contentType: "text/plain" });
    await storage.delete({ key });
    remembered.storageOkUntil = Date.now() + STORAGE_OK_MS;
    return "ok";
  } catch (error) {
    console.error("[framehook] readiness: the media store did not take a write", error);
    return "not writable";
  }
}
