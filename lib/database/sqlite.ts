// The database for SQLite (a `file:` database) and libSQL servers: Prisma's
// adapter and the outcome writer over one lock-safe connection, and how
// another writer's lock is waited out.
import "server-only";
import { createClient, type Client, type Config } from "@libsql/client";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { explainProviderMismatch } from "./provider-mismatch";
import { createSqliteOutcomeWriter } from "./outcome-write-sqlite";
import { isLockError, SqliteConnection } from "./sqlite-connection";

/**
 * The Prisma client and the outcome writer for SQLite (a `file:` database) or
 * a libSQL server, sharing one connection: for a file, a lock-safe
 * SqliteConnection; for a server, @libsql/client's own client.
 */
export function createSqliteDatabase({ url, authToken, lockWaitMs = 5_000 }: { url: string; authToken?: string; lockWaitMs?: number }) {
  const config: Config = { url, authToken };
  const isFile = url.startsWith("file:");
  let shared: Client | undefined;
  // Opened at the first use, and again if Prisma closed it ($disconnect).
  const connection = () => {
    if (!shared || shared.closed) shared = isFile ? new SqliteConnection(config) : createClient(config);
    return shared;
  };
  class SharedConnectionLibSQL extends PrismaLibSQL {
    createClient(options: Config): Client {
      // Prisma's shadow database (the CLI's, never the app's) is another URL.
      return options.url === url ? connection() : super.createClient(options);
    }
  }
  const client = explainProviderMismatch(() => new PrismaClient({ adapter: new SharedConnectionLibSQL(config) }), url);
  const writeOutcome = createSqliteOutcomeWriter({
    connection,
    retry: (operation) => (isFile ? retryWhileLocked(operation, lockWaitMs, isLockError) : operation()),
  });
  if (!isFile) return { prisma: client.$extends({}), writeOutcome, transactionsSerialized: false };

  // Another writer's lock is waited out here, asynchronously, rather than
  // with SQLite's busy_timeout: libSQL's driver is synchronous, so
  // busy_timeout would stall the thread that owns the connection
  // (sqlite-thread.ts), and every statement of the process behind it, while it
  // waits. Between tries the connection is free, so reads go on during another
  // connection's lock. (WAL mode is the connection's business: sqlite-connection.ts.)
  const prisma = client.$extends({
    query: {
      $allOperations: ({ args, query }) => retryWhileLocked(() => query(args), lockWaitMs, isPrismaBusy),
    },
  });
  // Every transaction on a file holds the write lock from its BEGIN IMMEDIATE to its end, on the
  // process's one connection: transactions run one at a time, whatever rows they touch.
  return { prisma, writeOutcome, transactionsSerialized: true };
}

/**
 * Runs `operation` again while SQLite refuses it for another connection's
 * lock, pausing up to `waitMs` in all. Safe because a refused operation did
 * nothing: a single statement that SQLITE_BUSY refused did not run, and a
 * transaction is refused at its BEGIN IMMEDIATE or rolled back whole
 * (sqlite-connection.ts). The budget counts pauses, not the attempts
 * themselves: a first attempt slowed by a busy machine must not use it up.
 */
async function retryWhileLocked<T>(operation: () => Promise<T>, waitMs: number, isBusy: (error: unknown) => boolean): Promise<T> {
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
function isPrismaBusy(error: unknown): boolean {
  const { code, meta } = (error ?? {}) as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return code === "P1008" || (code === "P2010" && meta?.driverAdapterError?.cause?.kind === "SocketTimeout");
}
