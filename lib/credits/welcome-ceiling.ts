// The instance-wide daily ceiling on welcome grants (CREDITS_WELCOME_GRANTS_PER_DAY):
// one counter in the database rate limiter, shared by every app instance,
// whatever address a new owner comes from. A per-address bound stops one
// client; only this bounds what a rotating proxy pool, or one routed IPv6
// /48, can take in free credits a day. The window is the UTC day.
import "server-only";
import { prisma, type Transaction } from "@/lib/db";
import { hitRateLimit } from "@/lib/rate-limit";
import { welcomeGrantsPerDay } from "./pricing";

const KEY = "welcome:instance";
const DAY_MS = 86_400_000;

export type WelcomeCeiling = { limit: number; used: number; resetsAt: Date };

/** Today's count, read without counting: what /admin shows, and a grant's first look (no write once it is reached). */
export async function readWelcomeCeiling(db: Pick<Transaction, "rateLimit"> = prisma, now = Date.now()): Promise<WelcomeCeiling> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const row = await db.rateLimit.findUnique({ where: { key: KEY } });
  const used = row && row.windowStart.getTime() === today ? Math.min(row.count, welcomeGrantsPerDay()) : 0;
  return { limit: welcomeGrantsPerDay(), used, resetsAt: new Date(today + DAY_MS) };
}

/**
 * Takes one of today's welcome grants, in the grant's transaction (so it rolls
 * back with it); false once the ceiling is reached. Off (0): always true.
 */
export async function takeWelcomeGrant(tx: Transaction): Promise<boolean> {
  const limit = welcomeGrantsPerDay();
  if (limit <= 0) return true;
  // Past the ceiling every visit of an unwelcomed owner would write the one shared row: look first.
  const seen = await readWelcomeCeiling(tx);
  if (seen.used >= limit) return false;
  return (await hitRateLimit({ key: KEY, limit, windowSeconds: DAY_MS / 1000, db: tx })).allowed;
}
