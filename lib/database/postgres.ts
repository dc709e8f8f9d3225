// The database on PostgreSQL: one pool of DATABASE_POOL_MAX connections per
// app instance, shared by the Prisma client (@prisma/adapter-pg) and the
// outcome writer. DATABASE_URL may be a pooler (PgBouncer, Neon pooled) in
// transaction mode: the app needs no session state of its own, and sends no
// named prepared statements.
import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { createPostgresOutcomeWriter } from "./outcome-write-postgres";
import { explainProviderMismatch } from "./provider-mismatch";

export function createPostgresDatabase({ url, poolMax }: { url: string; poolMax: number }) {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    // A request that cannot get a connection fails within the request, not never.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Idle connections do not keep a script or a test process alive.
    allowExitOnIdle: true,
  });
  // A connection that dies while idle (a restart, a failover) is dropped from the pool, not thrown.
  pool.on("error", (error) => console.warn("[framehook] an idle PostgreSQL connection failed:", error.message));
  const prisma = explainProviderMismatch(() => new PrismaClient({ adapter: new PrismaPg(pool) }), url).$extends({});
  // READ COMMITTED transactions run side by side: what must not, takes a row lock.
  return { prisma, writeOutcome: createPostgresOutcomeWriter(pool), transactionsSerialized: false };
}
