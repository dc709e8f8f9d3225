// The Prisma client singleton over the libSQL adapter (SQLite file or libSQL server).
import "server-only";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { env } from "@/lib/env";

function createPrismaClient() {
  const adapter = new PrismaLibSQL({ url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN });
  const client = new PrismaClient({ adapter });
  if (env.DATABASE_URL.startsWith("file:")) {
    // WAL lets readers run beside the single writer; busy_timeout waits out a
    // writer instead of failing with SQLITE_BUSY.
    const ready = client
      .$queryRawUnsafe("PRAGMA journal_mode = WAL")
      .then(() => client.$queryRawUnsafe("PRAGMA busy_timeout = 5000"));
    return client.$extends({
      query: {
        async $allOperations({ args, query }) {
          await ready;
          return query(args);
        },
      },
    });
  }
  return client.$extends({});
}

type Db = ReturnType<typeof createPrismaClient>;
const globalForPrisma = globalThis as unknown as { framehookPrisma?: Db };

export const prisma: Db = globalForPrisma.framehookPrisma ?? createPrismaClient();
if (env.NODE_ENV !== "production") globalForPrisma.framehookPrisma = prisma;
