// What /api/health answers: whether the database is up (the plain probe) and,
// for the verbose report behind the cron's token, every doctor check.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { hasBearerToken } from "@/lib/viewer/safe-equal";
import { runDoctor, type CheckResult } from "./run-doctor";

/** One `SELECT 1`: false (and logged) when the database cannot answer. The doctor's checkDatabase says why. */
export async function isDatabaseUp(): Promise<boolean> {
  try {
    await prisma.$queryRawUnsafe("SELECT 1");
    return true;
  } catch (error) {
    console.error("[framehook] database health check failed", error);
    return false;
  }
}

/** `npm run doctor`'s checks for a deployed app; `ok` is false when any would lose callbacks or money. */
export async function checkEverything(): Promise<{ ok: boolean; checks: CheckResult[] }> {
  const checks = await runDoctor();
  return { ok: checks.every((check) => check.status !== "fail"), checks };
}

/** The verbose report names variables and addresses, so it asks for the cron's bearer token. */
export function hasCronSecret(header: string | null): boolean {
  return hasBearerToken(header, env.CRON_SECRET);
}
