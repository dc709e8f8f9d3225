import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { runDoctor, type CheckResult } from "@/lib/doctor/run-doctor";
import { hasBearerToken } from "@/lib/viewer/safe-equal";

export async function checkDatabase(): Promise<boolean> {
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
