// The Prisma client singleton, over the adapter of the configured engine.
import "server-only";
import { createSqliteClient } from "@/lib/database/sqlite";
import { env } from "@/lib/env";

function createPrismaClient() {
  return createSqliteClient({ url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN, lockWaitMs: env.DATABASE_LOCK_WAIT_MS });
}

type Db = ReturnType<typeof createPrismaClient>;
const globalForPrisma = globalThis as unknown as { framehookPrisma?: Db };

export const prisma: Db = globalForPrisma.framehookPrisma ?? createPrismaClient();
if (env.NODE_ENV !== "production") globalForPrisma.framehookPrisma = prisma;
