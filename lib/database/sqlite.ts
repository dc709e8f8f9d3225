// The Prisma client over the libSQL adapter (SQLite file or libSQL server).
import "server-only";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { explainProviderMismatch } from "./provider-mismatch";

/** How long an operation waits out another writer's lock. */
const BUSY_WAIT_MS = 5_000;

export function createSqliteClient({ url, authToken }: { url: string; authToken?: string }) {
  const adapter = new PrismaLibSQL({ url, authToken });
  const client = explainProviderMismatch(() => new PrismaClient({ adapter }), url);
  if (!url.startsWith("file:")) return client.$extends({});

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
