// Checks of the machine and its configuration: Node, the .env* files and the
// variables they set (names only), lib/env.ts's verdict, secrets and the cron.
import fs from "node:fs";
import path from "node:path";
import packageJson from "@/package.json";
import { fail, isSet, ok, warn, type CheckResult, type RawEnvironment } from "./check";
import { MAKE_SECRET, PRODUCTION_SECRET_MIN_LENGTH } from "./secret-rules";

export function checkNodeVersion(version = process.versions.node): CheckResult {
  const wanted = packageJson.engines.node.replace(/^>=\s*/, "");
  const detail = `${version} (package.json needs >=${wanted})`;
  return compareVersions(version, wanted) >= 0
    ? ok("Node.js", detail)
    : fail("Node.js", detail, `install Node.js ${wanted} or later (https://nodejs.org, or \`nvm install 24\`)`);
}

function compareVersions(a: string, b: string): number {
  const [pa, pb] = [a, b].map((v) => v.split(".").map((n) => Number.parseInt(n, 10) || 0));
  for (let i = 0; i < 3; i++) {
    const diff = (pa![i] ?? 0) - (pb![i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The files Next (and scripts/load-env-files.ts) read, in priority order, for this NODE_ENV. */
export function envFilesRead(nodeEnv: string): string[] {
  const mode = nodeEnv === "production" ? "production" : nodeEnv === "test" ? "test" : "development";
  return [`.env.${mode}.local`, ...(mode === "test" ? [] : [".env.local"]), `.env.${mode}`, ".env"];
}

export function checkEnvFiles(source: RawEnvironment, cwd: string): CheckResult {
  const read = envFilesRead(source.NODE_ENV ?? "development");
  const present = fs.readdirSync(cwd).filter((file) => file.startsWith(".env") && file !== ".env.example");
  const fromFiles = new Set<string>();
  const described = read
    .filter((file) => present.includes(file))
    .map((file) => {
      const names = variableNames(fs.readFileSync(path.join(cwd, file), "utf8"));
      names.forEach((name) => fromFiles.add(name));
      return `${file} (${names.join(", ") || "empty"})`;
    });
  const known = knownVariables(cwd);
  const fromHost = known.filter((name) => isSet(source, name) && !fromFiles.has(name));
  const ignored = present.filter((file) => !read.includes(file));
  const parts = [
    described.length ? `read ${described.join("; ")}` : "no .env file (the defaults run the local simulator)",
    ...(fromHost.length ? [`set by the shell or host: ${fromHost.join(", ")}`] : []),
    ...(ignored.length ? [`not read with NODE_ENV=${source.NODE_ENV ?? "development"}: ${ignored.join(", ")}`] : []),
  ];
  return ok("Environment files", parts.join("; "));
}

/** Names a .env file assigns (values never leave this function). */
export function variableNames(contents: string): string[] {
  const names = [...contents.matchAll(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)].map((m) => m[1]!);
  return [...new Set(names)];
}

/** The variables Framehook reads are the ones .env.example documents. */
function knownVariables(cwd: string): string[] {
  try {
    return variableNames(fs.readFileSync(path.join(cwd, ".env.example"), "utf8"));
  } catch {
    return [];
  }
}

export function checkSecrets(source: RawEnvironment): CheckResult {
  const name = "Secrets";
  if (source.NODE_ENV !== "production") {
    return ok(name, `NODE_ENV=${source.NODE_ENV ?? "development"}: production's rule (at least ${PRODUCTION_SECRET_MIN_LENGTH} characters each) is checked with NODE_ENV=production`);
  }
  const weak = (["WEBHOOK_SECRET", "CRON_SECRET"] as const).filter((key) => (source[key] ?? "").length < PRODUCTION_SECRET_MIN_LENGTH);
  if (weak.length === 0) return ok(name, `WEBHOOK_SECRET and CRON_SECRET set, at least ${PRODUCTION_SECRET_MIN_LENGTH} characters`);
  const described = weak.map((key) => `${key} ${isSet(source, key) ? "is too short" : "is missing"}`).join(", ");
  return fail(
    name,
    `${described} (production needs at least ${PRODUCTION_SECRET_MIN_LENGTH} characters each)`,
    `set ${weak.join(" and ")} in .env.production or your host's settings, each from \`${MAKE_SECRET}\``,
  );
}

export function checkCron({ cronSecret, gatewayIsLocal }: { cronSecret: string | undefined; gatewayIsLocal: boolean }): CheckResult {
  const name = "Cron";
  if (!cronSecret) {
    return fail(
      name,
      "CRON_SECRET is not set, so GET /api/cron/reconcile refuses every call: a task whose callback is lost stays pending until someone opens the page",
      `set CRON_SECRET (\`${MAKE_SECRET}\`) and call GET /api/cron/reconcile with "Authorization: Bearer $CRON_SECRET" every minute (your host's cron, or crontab: \`* * * * * cd /srv/framehook && npm run reconcile\`)`,
    );
  }
  return ok(
    name,
    gatewayIsLocal
      ? "CRON_SECRET set; with the local simulator the open pages poll, no schedule needed"
      : "CRON_SECRET set; make sure GET /api/cron/reconcile is scheduled every minute (host cron, or crontab with `npm run reconcile`)",
  );
}

/**
 * What free credits can cost in production: with no total spending cap and no
 * daily ceiling on welcome grants, fresh visitors from a proxy pool (or one
 * routed IPv6 /48) are bounded by nothing but the per-address limits.
 */
export function checkFreeCredits({
  production,
  totalSpendCap,
  welcomeGrant,
  welcomeGrantsPerDay,
  creditsEnabled,
}: {
  production: boolean;
  totalSpendCap: number;
  welcomeGrant: number;
  welcomeGrantsPerDay: number;
  creditsEnabled: boolean;
}): CheckResult {
  const name = "Free credits";
  if (!creditsEnabled || welcomeGrant <= 0) return ok(name, "no welcome grant");
  const ceiling = welcomeGrantsPerDay > 0 ? `at most ${welcomeGrantsPerDay} welcome grants of ${welcomeGrant} a day` : "no daily ceiling on welcome grants";
  const cap = totalSpendCap > 0 ? `a total spending cap of ${totalSpendCap} gateway credits` : "no total spending cap";
  if (production && totalSpendCap <= 0 && welcomeGrantsPerDay <= 0) {
    return warn(
      name,
      `${ceiling} and ${cap}: new visitors from many addresses (a proxy pool, one IPv6 /48) can take free credits without bound`,
      "set CREDITS_WELCOME_GRANTS_PER_DAY (default 1000) or SPEND_LIMIT_TOTAL_CREDITS (docs/credits.md, docs/operations.md)",
    );
  }
  return ok(name, `${ceiling}; ${cap}`);
}

/** Whether /admin is on; off, the page itself says how to turn it on. */
export function checkAdmin({ adminPassword, adminEmails }: { adminPassword: string | undefined; adminEmails: string[] }): CheckResult {
  const name = "Admin";
  const ways = [adminPassword ? "ADMIN_PASSWORD" : null, adminEmails.length ? `ADMIN_EMAILS (${adminEmails.length})` : null].filter(Boolean);
  if (ways.length) return ok(name, `/admin is on: ${ways.join(" and ")}`);
  return warn(name, "/admin is off: support cannot see owners, spend, credits or the delivery log", "set ADMIN_PASSWORD (12 characters or more) or ADMIN_EMAILS (verified emails of accounts), then restart (docs/operations.md)");
}
