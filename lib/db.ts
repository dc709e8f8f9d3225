// The database singleton for the engine DATABASE_URL names, SQLite/libSQL
// (lib/database/sqlite.ts) or PostgreSQL (lib/database/postgres.ts): the
// Prisma client, and the single writer's outcome write (lib/database/outcome-write.ts).
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

/** The client inside `prisma.$transaction(async (tx) => …)`, for functions that write as part of a caller's transaction. */
export type Transaction = Parameters<Extract<Parameters<typeof prisma.$transaction>[0], (tx: never) => unknown>>[0];
