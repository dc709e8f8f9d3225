// The Prisma client over @prisma/adapter-pg: one pool of DATABASE_POOL_MAX
// connections per app instance. DATABASE_URL may be a pooler (PgBouncer, Neon
// pooled) in transaction mode: the app needs no session state of its own.
import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { explainProviderMismatch } from "./provider-mismatch";

export function createPostgresClient({ url, poolMax }: { url: string; poolMax: number }) {
  const adapter = new PrismaPg({
    connectionString: url,
    max: poolMax,
    // A request that cannot get a connection fails within the request, not never.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  return explainProviderMismatch(() => new PrismaClient({ adapter }), url).$extends({});
}
