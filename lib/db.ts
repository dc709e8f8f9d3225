// The database singleton for the engine DATABASE_URL names, SQLite/libSQL
// (lib/database/sqlite.ts) or PostgreSQL (lib/database/postgres.ts): the
// Prisma client, the single writer's outcome write (lib/database/outcome-write.ts),
// and whether the engine runs its transactions one at a time.
// Only the chosen engine's driver is imported, so an install on SQLite never loads `pg`.
import "server-only";
import { databaseEngine } from "@/lib/database/engine";
import { env } from "@/lib/env";

async function createDatabase() {
  if (databaseEngine(env.DATABASE_URL) === "postgres") {
    const { createPostgresDatabase } = await import("@/lib/database/postgres");
    return createPostgresDatabase({ url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX });
  }
  const { createSqliteDatabase } = await import("@/lib/database/sqlite");
  return createSqliteDatabase({ url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN, lockWaitMs: env.DATABASE_LOCK_WAIT_MS });
}

type Database = Awaited<ReturnType<typeof createDatabase>>;
const globalForDatabase = globalThis as unknown as { framehookDatabase?: Database };

const database: Database = globalForDatabase.framehookDatabase ?? (await createDatabase());
if (env.NODE_ENV !== "production") globalForDatabase.framehookDatabase = database;

export const prisma = database.prisma;
export const writeOutcome = database.writeOutcome;
/**
 * Whether the engine runs one transaction at a time (a SQLite file): then a
 * transaction's reads and writes are atomic without a lock row, which a hot
 * path may leave out. Locks that also order or record something stay.
 */
export const transactionsSerialized = database.transactionsSerialized;

/** The client inside `prisma.$transaction(async (tx) => …)`, for functions that write as part of a caller's transaction. */
export type Transaction = Parameters<Extract<Parameters<typeof prisma.$transaction>[0], (tx: never) => unknown>>[0];
