// The Prisma client for SQLite (a `file:` database) and libSQL servers: the
// adapter over one lock-safe connection, and how another writer's lock is
// waited out.
import "server-only";
import type { Client, Config } from "@libsql/client";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { explainProviderMismatch } from "./provider-mismatch";
import { SqliteConnection } from "./sqlite-connection";

/** The libSQL adapter over SqliteConnection for `file:` URLs (a server's URL keeps @libsql/client's own client). */
class LockSafeLibSQL extends PrismaLibSQL {
  createClient(config: Config): Client {
    return config.url.startsWith("file:") ? new SqliteConnection(config) : super.createClient(config);
  }
}

export function createSqliteClient({ url, authToken, lockWaitMs = 5_000 }: { url: string; authToken?: string; lockWaitMs?: number }) {
  const client = explainProviderMismatch(() => new PrismaClient({ adapter: new LockSafeLibSQL({ url, authToken }) }), url);
  if (!url.startsWith("file:")) return client.$extends({});

  // Another writer's lock is waited out here, asynchronously, rather than
  // with SQLite's busy_timeout: libSQL's driver is synchronous, so
  // busy_timeout would stall the whole event loop (every request) while it
  // waits. Between tries the adapter is free, so reads go on during another
  // connection's lock. (WAL mode is the connection's business: sqlite-connection.ts.)
  return client.$extends({
    query: {
      $allOperations: ({ args, query }) => retryWhileLocked(() => query(args), lockWaitMs),
    },
  });
}

/**
 * Runs `operation` again while SQLite refuses it for another connection's
 * lock, pausing up to `waitMs` in all. Safe because a refused operation did
 * nothing: a single statement that SQLITE_BUSY refused did not run, and a
 * transaction is refused at its BEGIN IMMEDIATE or rolled back whole
 * (sqlite-connection.ts). The budget counts pauses, not the attempts
 * themselves: a first attempt slowed by a busy machine must not use it up.
 */
async function retryWhileLocked<T>(operation: () => Promise<T>, waitMs: number): Promise<T> {
  for (let attempt = 1, waited = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!isBusy(error) || waited >= waitMs) throw error;
      const pause = Math.min(10 * 2 ** attempt, 250, waitMs - waited);
      await new Promise((resolve) => setTimeout(resolve, pause));
      waited += pause;
    }
  }
}

/**
 * The libSQL adapter reports SQLITE_BUSY as a socket timeout: Prisma calls it
 * P1008 for model queries, and P2010 ("Raw query failed") for raw ones.
 */
function isBusy(error: unknown): boolean {
  const { code, meta } = (error ?? {}) as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return code === "P1008" || (code === "P2010" && meta?.driverAdapterError?.cause?.kind === "SocketTimeout");
}
