// The Prisma client singleton over the libSQL adapter (SQLite file or libSQL server).
import "server-only";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { env } from "@/lib/env";

/** How long an operation waits out another writer's lock. */
const BUSY_WAIT_MS = 5_000;

function createPrismaClient() {
  const adapter = new PrismaLibSQL({ url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN });
  const client = new PrismaClient({ adapter });
  if (!env.DATABASE_URL.startsWith("file:")) return client.$extends({});

  // WAL lets readers run beside the one writer. Another writer's lock is
  // waited out here, asynchronously, rather than with SQLite's busy_timeout:
  // libSQL's driver is synchronous, so busy_timeout would stall the whole
  // event loop (every request) while it waits, and @libsql/client opens a
  // fresh connection without the pragma after each transaction anyway.
  const ready = client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  return client.$extends({
    query: {
      async $allOperations({ args, query }) {
        await ready;
        const deadline = Date.now() + BUSY_WAIT_MS;
        for (let attempt = 1; ; attempt++) {
          try {
            return await query(args);
          } catch (error) {
            // A statement refused for a lock did not run: trying again is safe.
            if (!isBusy(error) || Date.now() > deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 250)));
          }
        }
      },
    },
  });
}

/** The libSQL adapter reports SQLITE_BUSY as a socket timeout, which Prisma calls P1008. */
function isBusy(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "P1008";
}

type Db = ReturnType<typeof createPrismaClient>;
const globalForPrisma = globalThis as unknown as { framehookPrisma?: Db };

export const prisma: Db = globalForPrisma.framehookPrisma ?? createPrismaClient();
if (env.NODE_ENV !== "production") globalForPrisma.framehookPrisma = prisma;
