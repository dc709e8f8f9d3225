// What a database error means, whichever engine raised it: domain code asks
// these questions and never names an engine's error codes itself.

/** The insert or update broke a unique constraint (Prisma's P2002, on every engine). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}

/**
 * The transaction did not run, or was rolled back, for want of the database
 * rather than because of what it does: SQLite answers a second writer's BEGIN
 * with "busy" at once, and a PostgreSQL pool may have no connection free in
 * time (P2028), a write conflict (P2034) or a timeout (P1008). Trying again is safe.
 */
export function isRetryableTransaction(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "P1008" || code === "P2028" || code === "P2034" || (typeof message === "string" && /SQLITE_BUSY|database is locked/i.test(message));
}

/**
 * PostgreSQL's SQLSTATEs for "no database to answer in time": connection
 * exceptions (class 08), shutting down or starting up, too many connections,
 * and a lock held by another session past lock_timeout (55P03: a migration
 * or a backup holding a table, as SQLite's write lock held past the wait).
 */
const UNAVAILABLE_SQLSTATE = /^(08\w{3}|57P0[1-3]|53300|55P03)$/;
/** Prisma's codes for the same: the server unreachable, timed out, closed the connection, or the pool had no connection free. */
const UNAVAILABLE_PRISMA = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);

/**
 * The database could not be reached or could not answer in time (a stopped
 * or restarting server, a dropped connection, an exhausted pool, SQLite's
 * write lock held past the wait): an outage to wait out, not a fault of the
 * request. Looks through an error's causes, where driver adapters keep the driver's error.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isRetryableTransaction(e)) return true;
    const { code, originalCode, kind, message } = e as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown };
    if (typeof code === "string" && (UNAVAILABLE_PRISMA.has(code) || UNAVAILABLE_SQLSTATE.test(code) || /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EAI_AGAIN)$/.test(code))) return true;
    if (typeof originalCode === "string" && UNAVAILABLE_SQLSTATE.test(originalCode)) return true;
    if (kind === "DatabaseNotReachable" || kind === "ConnectionClosed" || kind === "SocketTimeout" || kind === "TooManyConnections") return true;
    if (typeof message === "string" && /ECONNREFUSED|Connection terminated|connection (is )?closed|Can't reach database server|the database system is (starting up|shutting down)|terminating connection/i.test(message)) return true;
  }
  return false;
}

/** Runs `run` again, with jittered backoff, while it fails with a retryable error and `waitMs` has not passed. */
export async function retryTransaction<T>(run: () => Promise<T>, { waitMs }: { waitMs: number }): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isRetryableTransaction(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5 * 2 ** attempt, 100) * (0.5 + Math.random())));
    }
  }
}
