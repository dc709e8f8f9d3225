// `npm run doctor` and GET /api/health?verbose=1: every check, in the order a
// newcomer would fix them. Modules that read the validated environment load
// lazily, so an environment lib/env.ts refuses is reported, not thrown.
import { fail, ok, rawEnvironment, skip, type CheckResult, type RawEnvironment } from "./check";
import { checkAccounts } from "./accounts";
import { checkDatabase } from "./database";
import { checkAdmin, checkCron, checkEnvFiles, checkFreeCredits, checkNodeVersion, checkSecrets } from "./environment";

export type { CheckResult } from "./check";

export async function runDoctor({ source = rawEnvironment(), cwd = process.cwd() }: { source?: RawEnvironment; cwd?: string } = {}): Promise<CheckResult[]> {
  const results: CheckResult[] = [checkNodeVersion(), checkEnvFiles(source, cwd)];
  let loaded: typeof import("@/lib/env");
  try {
    loaded = await import("@/lib/env");
    results.push(ok("Configuration", "lib/env.ts accepts every variable"));
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/\n/g, " ").replace(/\s+/g, " ") : String(error);
    results.push(fail("Configuration", message, "fix the variables it names (each is described in .env.example)"));
    results.push(checkSecrets(source));
    for (const name of ["Database", "Gateway", "Callbacks", "Inputs", "Cron", "Sign-in", "Payments", "Free credits", "Admin"]) results.push(skip(name, "not checked until the configuration is valid"));
    return results;
  }
  const { env } = loaded;
  results.push(checkSecrets(source));
  // These import lib/env.ts themselves (the gateway client, the callback URL), so they load only once it has accepted the environment.
  const [{ prisma }, { getCredits }, { checkGateway }, { checkCallbacks }, { checkInputs }, { toolchainVersion }, { checkMediaToolchain }, { checkPayments }, { stripeClient }] = await Promise.all([
    import("@/lib/db"),
    import("@/lib/gateway/client"),
    import("./gateway"),
    import("./callbacks"),
    import("./inputs"),
    import("@/lib/media/toolchain"),
    import("./media"),
    import("./payments"),
    import("@/lib/payments/stripe-client"),
  ]);
  const { verifyMailTransport } = await import("@/lib/auth/mail");
  const { enabledSocialProviders } = await import("@/lib/auth/auth");
  const [database, gateway, callbacks, inputs, media, accounts, payments] = await Promise.all([
    checkDatabase({ databaseUrl: env.DATABASE_URL, query: (sql) => prisma.$queryRawUnsafe(sql), cwd }),
    checkGateway({ baseUrl: env.GATEWAY_BASE_URL, gatewayIsLocal: env.gatewayIsLocal, getCredits }),
    checkCallbacks({ publicBaseUrl: env.PUBLIC_BASE_URL, gatewayIsLocal: env.gatewayIsLocal, source }),
    checkInputs({ publicBaseUrl: env.PUBLIC_BASE_URL, gatewayIsLocal: env.gatewayIsLocal, storageEnabled: env.MEDIA_STORAGE !== "none", source }),
    checkMediaToolchain({ storageEnabled: env.MEDIA_STORAGE !== "none", version: toolchainVersion }),
    checkAccounts({ smtpUrl: env.SMTP_URL, production: env.NODE_ENV === "production", verifyTransport: verifyMailTransport, socialProviders: enabledSocialProviders() }),
    checkPayments({ settings: env.payments, publicBaseUrl: env.PUBLIC_BASE_URL, production: env.NODE_ENV === "production", stripe: stripeClient(), creditsEnabled: env.CREDITS_ENABLED }),
  ]);
  const freeCredits = checkFreeCredits({
    production: env.NODE_ENV === "production",
    totalSpendCap: env.SPEND_LIMIT_TOTAL_CREDITS,
    welcomeGrant: env.CREDITS_WELCOME_GRANT,
    welcomeGrantsPerDay: env.CREDITS_WELCOME_GRANTS_PER_DAY,
    creditsEnabled: env.CREDITS_ENABLED,
  });
  results.push(database, gateway, callbacks, inputs, checkCron({ cronSecret: env.CRON_SECRET, gatewayIsLocal: env.gatewayIsLocal }), ...media, accounts, ...payments, freeCredits, checkAdmin({ adminPassword: env.ADMIN_PASSWORD, adminEmails: env.ADMIN_EMAILS }));
  return results;
}

/**
 * The checklist as the terminal shows it: ✓/!/✗ per check, the fix under each
 * ! and ✗. Only a ✗ can lose callbacks, tasks or credits; a ! is a feature
 * that is off (stills without FFmpeg), and the verdict says so.
 */
export function formatReport(results: CheckResult[]): string {
  const mark = { ok: "✓", warn: "!", fail: "✗", skip: "–" } as const;
  const lines = results.flatMap((r) => [`${mark[r.status]} ${r.name}: ${r.detail}`, ...(r.fix ? [`    fix: ${r.fix}`] : [])]);
  const count = (status: CheckResult["status"]) => results.filter((r) => r.status === status).length;
  const [failures, warnings] = [count("fail"), count("warn")];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const warned = warnings === 0 ? "" : `${plural(warnings, "feature")} off (marked !): the rest works without ${warnings === 1 ? "it" : "them"}.`;
  lines.push(
    "",
    failures > 0
      ? `${plural(failures, "problem")}: until fixed, callbacks, tasks or credits may be lost.${warned ? ` Also ${warned}` : ""}`
      : warned
        ? `No problems: ${warned}`
        : "All checks passed.",
  );
  return lines.join("\n");
}
