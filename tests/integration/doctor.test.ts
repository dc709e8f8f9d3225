// `npm run doctor` as a user runs it (the real script in a child process)
// against a running app, simulator and migrated database; then each way a
// setup loses callbacks or money, named with its fix and a non-zero exit.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { startMailSink } from "../support/mail-sink";
import { startSimulator } from "../support/global-setup";
import { testEngine } from "../support/test-database";
import { findPostgresBin } from "../../scripts/local-postgres";

const CRON_SECRET = "cron-secret-for-the-doctor-tests-0123456789";
const app = await startApp({ env: { CRON_SECRET } });
const base = { ...process.env } as Record<string, string | undefined>;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-doctor-"));
let remote: Awaited<ReturnType<typeof startSimulator>> | undefined;

afterAll(async () => {
  remote?.child.kill("SIGTERM");
  await app.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Runs scripts/doctor.ts as `npm run doctor` does, with `changes` over the stack's environment (undefined: unset). */
function doctor(changes: Record<string, string | undefined> = {}): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(Object.entries({ ...base, ...changes }).filter(([, value]) => value !== undefined)) as NodeJS.ProcessEnv;
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/doctor.ts"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

const line = (output: string, mark: "✓" | "✗", name: string) => output.split("\n").find((l) => l.startsWith(`${mark} ${name}:`));
const fixAfter = (output: string, name: string) => {
  const lines = output.split("\n");
  return lines[lines.findIndex((l) => l.startsWith(`✗ ${name}:`)) + 1];
};

test("against the running stack every check passes, the balance is shown, and it exits 0", async () => {
  const { code, output } = await doctor();
  expect(output).not.toContain("✗");
  for (const name of ["Node.js", "Environment files", "Configuration", "Secrets", "Database", "Gateway", "Callbacks", "Inputs", "Cron", "Uploads", "Stills", "Use first/last frame"]) {
    expect(line(output, "✓", name), `${name} in:\n${output}`).toBeDefined();
  }
  expect(line(output, "✓", "Gateway")).toMatch(/balance \d+ credits/);
  expect(line(output, "✓", "Database")).toMatch(/all \d+ migrations applied/);
  expect(output).not.toContain(CRON_SECRET);
  expect(code).toBe(0);
});

test("a wrong key: ✗ Gateway says the key is wrong", async () => {
  const { code, output } = await doctor({ GATEWAY_API_KEY: "not-the-key" });
  expect(line(output, "✗", "Gateway")).toMatch(/refused GATEWAY_API_KEY \(401\): the key is wrong/);
  expect(fixAfter(output, "Gateway")).toMatch(/fix: .*GATEWAY_API_KEY/);
  expect(output).not.toContain("not-the-key");
  expect(code).toBe(1);
});

// A simulator reached through a non-loopback address is, to the app, a remote
// gateway. Without such an address the check cannot be made: skipped, and the
// skip says why, rather than a weaker check that passes.
const outward = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === "IPv4" && !a.internal)?.address;
const withOutwardAddress = outward ? test : test.skip;
withOutwardAddress(`a remote gateway with a localhost PUBLIC_BASE_URL: ✗ Callbacks and ✗ Inputs, with the public-address fix${outward ? "" : " (skipped: this machine has no non-loopback IPv4 address)"}`, async () => {
  remote = await startSimulator({ SIMULATOR_HOST: "0.0.0.0", SIMULATOR_LOG: "quiet" });
  const gateway = remote.url.replace("127.0.0.1", outward!);
  const { code, output } = await doctor({
    GATEWAY_BASE_URL: gateway,
    GATEWAY_API_KEY: "sim-dev-key",
    WEBHOOK_SECRET: "w".repeat(40),
    PUBLIC_BASE_URL: "http://localhost:3000",
  });
  expect(line(output, "✗", "Callbacks")).toMatch(/cannot call back PUBLIC_BASE_URL=http:\/\/localhost:3000: localhost is a local/);
  expect(fixAfter(output, "Callbacks")).toMatch(/fix: set PUBLIC_BASE_URL to the app's public https address/);
  // Uploaded inputs follow the same rule: the gateway could not fetch them either.
  expect(line(output, "✗", "Inputs")).toMatch(/could not fetch uploaded frames and videos from PUBLIC_BASE_URL=http:\/\/localhost:3000: localhost is a local, private or link-local address; submissions with uploads are refused/);
  // Callbacks and inputs are the only ones that fail: the remote gateway itself answers.
  expect(output.match(/^✗/gm)).toHaveLength(2);
  expect(code).toBe(1);
});

describe("an unmigrated database", () => {
  const folder = `prisma/${testEngine()}/migrations`;
  const committed = fs.readdirSync(folder).filter((name) => fs.existsSync(path.join(folder, name, "migration.sql")));

  /** An empty database of the engine under test: an empty SQLite file, or a PostgreSQL database with no table. */
  function emptyDatabase(): string {
    if (testEngine() === "sqlite") {
      const file = path.join(scratch, "empty.db");
      fs.writeFileSync(file, "");
      return `file:${file}`;
    }
    const port = process.env.FRAMEHOOK_TEST_POSTGRES_PORT!;
    const name = `doctor_empty_${process.pid}`;
    execFileSync(path.join(findPostgresBin()!, "createdb"), ["-h", "127.0.0.1", "-p", port, "-U", "postgres", name]);
    return `postgresql://postgres@127.0.0.1:${port}/${name}`;
  }

  test("an empty database: ✗ Database names every pending migration", async () => {
    const { code, output } = await doctor({ DATABASE_URL: emptyDatabase() });
    expect(line(output, "✗", "Database")).toContain(`${committed.length} of ${committed.length} migrations pending: ${committed.sort().join(", ")}`);
    expect(fixAfter(output, "Database")).toMatch(/fix: run `npm run db:migrate`/);
    expect(code).toBe(1);
  });

  test.runIf(testEngine() === "sqlite")("no database file at all: ✗ Database, and the doctor does not create one", async () => {
    const file = path.join(scratch, "absent.db");
    const { code, output } = await doctor({ DATABASE_URL: `file:${file}` });
    expect(line(output, "✗", "Database")).toContain(`no database file at file:${file}`);
    expect(fs.existsSync(file)).toBe(false);
    expect(code).toBe(1);
  });

  test.runIf(testEngine() === "postgres")("a database that does not exist: ✗ Database cannot reach it", async () => {
    const port = process.env.FRAMEHOOK_TEST_POSTGRES_PORT!;
    const { code, output } = await doctor({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/no_such_database` });
    expect(line(output, "✗", "Database")).toContain(`cannot reach postgresql://127.0.0.1:${port}/no_such_database`);
    expect(code).toBe(1);
  });
});

test("NODE_ENV=production without CRON_SECRET: ✗ Secrets, with how to make one", async () => {
  const { code, output } = await doctor({ NODE_ENV: "production", WEBHOOK_SECRET: "w".repeat(64), CRON_SECRET: undefined });
  expect(line(output, "✗", "Secrets")).toMatch(/CRON_SECRET is missing \(production needs at least 32 characters each\)/);
  expect(fixAfter(output, "Secrets")).toMatch(/fix: set CRON_SECRET in \.env\.production .*openssl rand -hex 32/);
  expect(code).toBe(1);
});

test("SMTP_URL: ✓ Sign-in when the mail server accepts us (nothing sent), ✗ when nothing answers, never the password", async () => {
  const sink = await startMailSink();
  try {
    const withUser = sink.url.replace("smtp://", "smtp://mailer:s3cret-pass@");
    const good = await doctor({ SMTP_URL: withUser });
    expect(line(good.output, "✓", "Sign-in")).toContain(`email links go through ${new URL(sink.url).host}, which accepted our credentials`);
    expect(sink.received).toEqual([]);
    const deadPort = new URL(sink.url).port === "1" ? "2" : "1";
    const bad = await doctor({ SMTP_URL: `smtp://mailer:s3cret-pass@127.0.0.1:${deadPort}` });
    expect(line(bad.output, "✗", "Sign-in")).toContain(`the mail server at 127.0.0.1:${deadPort} refused or did not answer`);
    expect(good.output + bad.output).not.toContain("s3cret-pass");
  } finally {
    await sink.close();
  }
});

describe("GET /api/health?verbose=1", () => {
  test("with the cron's bearer token: the same checks, all passing (buying is off: production without a Stripe key)", async () => {
    const response = await app.fetch("/api/health?verbose=1", { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; checks: { name: string; status: string; detail: string }[] };
    expect(body.ok).toBe(true);
    expect(body.checks.map((c) => [c.name, c.status])).toEqual([
      ...["Node.js", "Environment files", "Configuration", "Secrets", "Database", "Gateway", "Callbacks", "Inputs", "Cron", "Uploads", "Stills", "Use first/last frame"].map((name) => [name, "ok"]),
      // Production without SMTP_URL: guests work, email sign-in is off.
      ["Sign-in", "warn"],
      ["Payments", "warn"],
      ["Free credits", "ok"],
      ["Admin", "ok"],
    ]);
    expect(body.checks.find((c) => c.name === "Payments")?.detail).toBe("buying credits is off: STRIPE_SECRET_KEY is not set");
    expect(body.checks.find((c) => c.name === "Sign-in")?.detail).toMatch(/^email sign-in is off: no SMTP_URL/);
  });

  test.each([
    ["no token", undefined],
    ["a wrong token", "Bearer wrong"],
  ])("with %s: 401 and no report", async (_name, authorization) => {
    const response = await app.fetch("/api/health?verbose=1", { headers: authorization ? { Authorization: authorization } : {} });
    expect(response.status).toBe(401);
    expect(JSON.stringify(await response.json())).not.toContain("checks");
  });

  test("plain /api/health is unchanged and needs no token", async () => {
    const response = await app.fetch("/api/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, database: "ok" });
  });
});
