// Fixed-window rate limits kept in the database, so that every app instance
// (and every restart) sees the same counts. One atomic upsert per hit.
import "server-only";
import { createHash } from "node:crypto";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { clientAddress } from "@/lib/peer-address";

export type RateLimitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export async function hitRateLimit({
  key,
  limit,
  windowSeconds,
  now = Date.now(),
}: {
  key: string;
  limit: number;
  windowSeconds: number;
  now?: number;
}): Promise<RateLimitResult> {
  if (limit <= 0) return { allowed: true };
  const windowMs = windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  // A new window resets the count; the same window increments it.
  const rows = await prisma.$queryRaw<{ count: number | bigint }[]>`
    INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES (${key}, ${windowStart}, 1)
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "RateLimit"."windowStart" = excluded."windowStart" THEN "RateLimit"."count" + 1 ELSE 1 END,
      "windowStart" = excluded."windowStart"
    RETURNING "count"`;
  const count = Number(rows[0]?.count ?? 1);
  // A visitor's first hit in a window: clear out windows of visitors long gone,
  // so that a stream of new addresses cannot grow the table without bound.
  if (count === 1) await pruneRateLimits({ now });
  if (count <= limit) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)) };
}

/** Deletes windows that started more than a day ago: the longest window a limit may have (lib/env.ts). */
export async function pruneRateLimits({ now = Date.now() }: { now?: number } = {}): Promise<number> {
  const { count } = await prisma.rateLimit.deleteMany({ where: { windowStart: { lt: new Date(now - MAX_WINDOW_MS) } } });
  return count;
}

const MAX_WINDOW_MS = 86_400_000;

/** A visitor's rate-limit identity: a keyed hash of the address, never the address itself. */
export function visitorKey(headers: Headers): string {
  return createHash("sha256").update(`${env.WEBHOOK_SECRET}:${clientAddress(headers, env.TRUSTED_PROXY_HOPS)}`).digest("base64url").slice(0, 22);
}
