// Fixed-window rate limits kept in the database, so that every app instance
// (and every restart) sees the same counts. One atomic upsert per hit.
import "server-only";
import { createHash } from "node:crypto";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { addressGroup, clientAddress } from "@/lib/viewer/peer-address";

/** `count`: hits in the current window, this one included. */
export type RateLimitResult = { allowed: true; count: number } | { allowed: false; count: number; retryAfterSeconds: number };

/** The client, or a transaction's, when the count must commit (or roll back) with what it allows. */
type RateLimitDb = Pick<typeof prisma, "$queryRaw">;

export async function hitRateLimit({
  key,
  limit,
  windowSeconds,
  now = Date.now(),
  db = prisma,
}: {
  key: string;
  limit: number;
  windowSeconds: number;
  now?: number;
  db?: RateLimitDb;
}): Promise<RateLimitResult> {
  if (limit <= 0) return { allowed: true, count: 0 };
  const { windowStart, retryAfterSeconds } = fixedWindow(now, windowSeconds);
  // A new window resets the count; the same window increments it.
  const rows = await db.$queryRaw<{ count: number | bigint }[]>`
    INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES (${key}, ${windowStart}, 1)
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "RateLimit"."windowStart" = excluded."windowStart" THEN "RateLimit"."count" + 1 ELSE 1 END,
      "windowStart" = excluded."windowStart"
    RETURNING "count"`;
  const count = Number(rows[0]?.count ?? 1);
  // A visitor's first hit in a window: clear out windows of visitors long gone,
  // so that a stream of new addresses cannot grow the table without bound.
  // Not inside a caller's transaction: deleting other keys' rows there could wait on (and deadlock with) theirs; the cron prunes too.
  if (count === 1 && db === prisma) await pruneRateLimits({ now });
  if (count <= limit) return { allowed: true, count };
  return { allowed: false, count, retryAfterSeconds };
}

/**
 * Takes one of a key's `limit` places in its window before the work it guards,
 * or none when all are taken: one conditional upsert, so of many requests at
 * once no more than `limit` are let through, and a refused one is not counted.
 * releaseRateLimit gives the place back when the work turned out not to count
 * (the access gate's right password).
 */
export async function reserveRateLimit({ key, limit, windowSeconds, now = Date.now() }: { key: string; limit: number; windowSeconds: number; now?: number }): Promise<RateLimitResult & { windowStart: Date }> {
  const { windowStart, retryAfterSeconds } = fixedWindow(now, windowSeconds);
  // No row back: the window is this one and full. A clock behind the row's (another instance's) counts in the row's window, never resets it.
  const rows = await prisma.$queryRaw<{ count: number | bigint; windowStart: Date }[]>`
    INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES (${key}, ${windowStart}, 1)
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "RateLimit"."windowStart" < excluded."windowStart" THEN 1 ELSE "RateLimit"."count" + 1 END,
      "windowStart" = CASE WHEN "RateLimit"."windowStart" < excluded."windowStart" THEN excluded."windowStart" ELSE "RateLimit"."windowStart" END
    WHERE "RateLimit"."windowStart" < excluded."windowStart" OR "RateLimit"."count" < ${limit}
    RETURNING "count", "windowStart"`;
  const row = rows[0];
  if (!row) return { allowed: false, count: limit, retryAfterSeconds, windowStart };
  const count = Number(row.count);
  if (count === 1) await pruneRateLimits({ now });
  return { allowed: true, count, windowStart: new Date(row.windowStart) };
}

/** Gives back a place reserveRateLimit took, if its window is still the key's. */
export async function releaseRateLimit({ key, windowStart }: { key: string; windowStart: Date }): Promise<void> {
  await prisma.$executeRaw`UPDATE "RateLimit" SET "count" = "count" - 1 WHERE "key" = ${key} AND "windowStart" = ${windowStart} AND "count" > 0`;
}

/** The fixed window `now` falls in, and how long until the next one starts. */
function fixedWindow(now: number, windowSeconds: number) {
  const windowMs = windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  return { windowStart, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)) };
}

/** Forgets a key's window, e.g. the failed attempts of a sign-in that then succeeded. */
export async function clearRateLimit({ key }: { key: string }): Promise<void> {
  await prisma.rateLimit.deleteMany({ where: { key } });
}

/** Deletes windows that started more than a day ago: the longest window a limit may have (lib/env.ts). */
export async function pruneRateLimits({ now = Date.now() }: { now?: number } = {}): Promise<number> {
  const { count } = await prisma.rateLimit.deleteMany({ where: { windowStart: { lt: new Date(now - MAX_WINDOW_MS) } } });
  return count;
}

const MAX_WINDOW_MS = 86_400_000;

/** The client's address as limits count it: IPv4 whole, IPv6 by its /48 (lib/viewer/peer-address.ts). */
export function visitorAddress(headers: Headers): string {
  return addressGroup(clientAddress(headers, env.TRUSTED_PROXY_HOPS, env.TRUSTED_PROXY_CIDRS));
}

/**
 * A visitor's identity for limits (the submit rate limit, the address
 * spending cap, sign-in attempts): a keyed hash of visitorAddress(), never
 * the address itself, so it can be stored.
 */
export function visitorKey(headers: Headers): string {
  return addressKey(visitorAddress(headers));
}

export function addressKey(address: string): string {
  return createHash("sha256").update(`${env.WEBHOOK_SECRET}:${address}`).digest("base64url").slice(0, 22);
}
