// Fixed-window rate limits kept in the database, so that every app instance
// (and every restart) sees the same counts. One atomic upsert per hit.
import "server-only";
import { createHash } from "node:crypto";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";

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
  if (count <= limit) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)) };
}

/**
 * A visitor's rate-limit identity: a keyed hash of the address, never the
 * address itself. The right-most X-Forwarded-For entry is the one the nearest
 * proxy saw; entries to its left are whatever the client chose to send.
 */
export function visitorKey(headers: Headers): string {
  const forwarded = headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
  const address = forwarded || headers.get("x-real-ip") || "unknown";
  return createHash("sha256").update(`${env.WEBHOOK_SECRET}:${address}`).digest("base64url").slice(0, 22);
}
