// The Prisma client singleton, over the adapter of the engine DATABASE_URL
// names: SQLite/libSQL (lib/database/sqlite.ts) or PostgreSQL (lib/database/postgres.ts).
import "server-only";
import { databaseEngine } from "@/lib/database/engine";
import { createPostgresClient } from "@/lib/database/postgres";
import { createSqliteClient } from "@/lib/database/sqlite";
import { env } from "@/lib/env";

function createPrismaClient() {
  if (databaseEngine(env.DATABASE_URL) === "postgres") {
    return createPostgresClient({ url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX });
  }
  return createSqliteClient({ url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN, lockWaitMs: env.DATABASE_LOCK_WAIT_MS });
}

type Db = ReturnType<typeof createPrismaClient>;
const globalForPrisma = globalThis as unknown as { framehookPrisma?: Db };

export const prisma: Db = globalForPrisma.framehookPrisma ?? createPrismaClient();
if (env.NODE_ENV !== "production") globalForPrisma.framehookPrisma = prisma;
