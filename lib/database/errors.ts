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
