// `npm run doctor` and GET /api/health?verbose=1: every check, in the order a
// newcomer would fix them. Modules that read the validated environment load
// lazily, so an environment lib/env.ts refuses is reported, not thrown.
import { fail, ok, rawEnvironment, skip, type CheckResult, type RawEnvironment } from "./check";
import { checkDatabase } from "./database";
import { checkCron, checkEnvFiles, checkNodeVersion, checkSecrets } from "./environment";

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
    for (const name of ["Database", "Gateway", "Callbacks", "Inputs", "Cron"]) results.push(skip(name, "not checked until the configuration is valid"));
    return results;
  }
  const { env } = loaded;
  results.push(checkSecrets(source));
  // These import lib/env.ts themselves (the gateway client, the callback URL), so they load only once it has accepted the environment.
  const [{ prisma }, { getCredits }, { checkGateway }, { checkCallbacks }, { checkInputs }, { toolchainVersion }, { checkMediaToolchain }] = await Promise.all([
    import("@/lib/db"),
    import("@/lib/gateway/client"),
    import("./gateway"),
    import("./callbacks"),
    import("./inputs"),
    import("@/lib/media/toolchain"),
    import("./media"),
  ]);
  const [database, gateway, callbacks, inputs, media] = await Promise.all([
    checkDatabase({ databaseUrl: env.DATABASE_URL, query: (sql) => prisma.$queryRawUnsafe(sql), cwd }),
    checkGateway({ baseUrl: env.GATEWAY_BASE_URL, gatewayIsLocal: env.gatewayIsLocal, getCredits }),
    checkCallbacks({ publicBaseUrl: env.PUBLIC_BASE_URL, gatewayIsLocal: env.gatewayIsLocal, source }),
    checkInputs({ publicBaseUrl: env.PUBLIC_BASE_URL, gatewayIsLocal: env.gatewayIsLocal, storageEnabled: env.MEDIA_STORAGE !== "none", source }),
    checkMediaToolchain({ storageEnabled: env.MEDIA_STORAGE !== "none", version: toolchainVersion }),
  ]);
  results.push(database, gateway, callbacks, inputs, checkCron({ cronSecret: env.CRON_SECRET, gatewayIsLocal: env.gatewayIsLocal }), media);
  return results;
}

/** The checklist as the terminal shows it: ✓/✗ per check, the fix under each ✗. */
export function formatReport(results: CheckResult[]): string {
  const mark = { ok: "✓", fail: "✗", skip: "–" } as const;
  const lines = results.flatMap((r) => [`${mark[r.status]} ${r.name}: ${r.detail}`, ...(r.fix ? [`    fix: ${r.fix}`] : [])]);
  const failures = results.filter((r) => r.status === "fail").length;
  lines.push(
    "",
    failures === 0 ? "All checks passed." : `${failures} problem${failures === 1 ? "" : "s"}: until fixed, callbacks, tasks or credits may be lost.`,
  );
  return lines.join("\n");
}
