import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { parseDatabaseEnv } from "@/lib/database/settings";
import { parseEnv } from "@/lib/env";

const remote = { GATEWAY_BASE_URL: "https://gateway.example.com", GATEWAY_API_KEY: "key", WEBHOOK_SECRET: "a-secret-of-some-length" };

describe("parseEnv", () => {
  test("zero configuration runs against the local simulator with development defaults", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ GATEWAY_BASE_URL: "http://127.0.0.1:4010", gatewayIsLocal: true, POLL_STALE_MS: 4000 });
    expect(env.WEBHOOK_SECRET).toBeTruthy();
    expect(env.CRON_SECRET).toBeTruthy();
    expect(env.DATABASE_URL).toMatch(/^file:\/.+\/data\/framehook\.db$/);
  });

  test.each([
    ["no API key", { ...remote, GATEWAY_API_KEY: undefined }, "GATEWAY_API_KEY"],
    ["no webhook secret, even in development", { ...remote, WEBHOOK_SECRET: undefined, NODE_ENV: "development" }, "WEBHOOK_SECRET"],
    ["a short webhook secret", { ...remote, WEBHOOK_SECRET: "short" }, "WEBHOOK_SECRET: must be at least 16 characters"],
    ["a gateway URL that is not http(s)", { GATEWAY_BASE_URL: "ftp://gateway.example.com" }, "GATEWAY_BASE_URL"],
    ["a poll interval that is not a number", { POLL_STALE_MS: "soon" }, "POLL_STALE_MS"],
    ["a database URL of another kind", { DATABASE_URL: "mysql://db" }, "DATABASE_URL"],
    ["a direct URL that is not PostgreSQL", { DATABASE_URL: "postgresql://db/app", DATABASE_DIRECT_URL: "file:./x.db" }, "DATABASE_DIRECT_URL"],
    ["a pool of no connections", { DATABASE_URL: "postgresql://db/app", DATABASE_POOL_MAX: "0" }, "DATABASE_POOL_MAX"],
  ])("refuses %s, naming the variable", (_name, source, message) => {
    expect(() => parseEnv(source as Record<string, string | undefined>)).toThrow(message);
  });

  test.each([
    ["no endpoint: traces off", {}, null],
    ["an empty endpoint: off", { OTEL_EXPORTER_OTLP_ENDPOINT: "" }, null],
    ["an endpoint", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, { endpoint: "http://127.0.0.1:4318", headers: {}, serviceName: "framehook" }],
    [
      "headers (percent-encoded) and a service name",
      { OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.com", OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc%3D%3D, team = video ", OTEL_SERVICE_NAME: "studio" },
      { endpoint: "https://otlp.example.com", headers: { "x-api-key": "abc==", team: "video" }, serviceName: "studio" },
    ],
  ])("traces: %s", (_name, source, tracing) => {
    expect(parseEnv(source).tracing).toEqual(tracing);
  });

  test.each([
    ["an endpoint that is not http(s)", { OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://collector:4317" }, "OTEL_EXPORTER_OTLP_ENDPOINT"],
    ["headers that are not key=value", { OTEL_EXPORTER_OTLP_HEADERS: "just-a-key" }, "OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs"],
  ])("traces: refuses %s", (_name, source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
  });

  test("a real gateway gets no public default: CRON_SECRET stays unset unless given", () => {
    const env = parseEnv(remote);
    expect(env.gatewayIsLocal).toBe(false);
    expect(env.CRON_SECRET).toBeUndefined();
    expect(env.WEBHOOK_SECRET).toBe(remote.WEBHOOK_SECRET);
  });

  const strong = "0123456789abcdef0123456789abcdef";
  test.each([
    ["no secrets at all", { NODE_ENV: "production" }, ["WEBHOOK_SECRET: is required in production", "CRON_SECRET: is required in production"]],
    ["no secrets, with the simulator on loopback", { NODE_ENV: "production", GATEWAY_BASE_URL: "http://127.0.0.1:4010" }, ["WEBHOOK_SECRET: is required", "CRON_SECRET: is required"]],
    ["no secrets, with a tunnel on localhost", { NODE_ENV: "production", GATEWAY_BASE_URL: "http://localhost:8080", GATEWAY_API_KEY: "real" }, ["WEBHOOK_SECRET: is required", "CRON_SECRET: is required"]],
    ["a short webhook secret", { NODE_ENV: "production", WEBHOOK_SECRET: "sixteen-chars-ok", CRON_SECRET: strong }, ["WEBHOOK_SECRET: is too short"]],
    ["a short cron secret", { NODE_ENV: "production", WEBHOOK_SECRET: strong, CRON_SECRET: "dev-only-cron-secret" }, ["CRON_SECRET: is too short"]],
    ["only the cron secret", { ...remote, NODE_ENV: "production", CRON_SECRET: strong }, ["WEBHOOK_SECRET"]],
    // The public development values, long enough to pass a length check: refused for what they are.
    ["the public development webhook secret", { NODE_ENV: "production", WEBHOOK_SECRET: "dev-only-webhook-secret-not-for-production", CRON_SECRET: strong }, ["WEBHOOK_SECRET: is the public development value"]],
    [
      "the payments simulator's public secret",
      { NODE_ENV: "production", WEBHOOK_SECRET: strong, CRON_SECRET: strong, PAYMENTS_SIMULATOR_URL: "http://127.0.0.1:4020", STRIPE_WEBHOOK_SECRET: "whsec_framehook_dev_only_not_a_secret" },
      ["STRIPE_WEBHOOK_SECRET: is the public development value"],
    ],
    [
      "Stripe with the public secret",
      { NODE_ENV: "production", WEBHOOK_SECRET: strong, CRON_SECRET: strong, STRIPE_SECRET_KEY: "sk_live_abc", STRIPE_WEBHOOK_SECRET: "whsec_framehook_dev_only_not_a_secret" },
      ["STRIPE_WEBHOOK_SECRET: is the public development value"],
    ],
  ])("production refuses to start with %s, and says how to make a secret", (_name, source, messages) => {
    const attempt = () => parseEnv(source as Record<string, string | undefined>);
    for (const message of messages) expect(attempt).toThrow(message);
    expect(attempt).toThrow("openssl rand -hex 32");
  });

  test.each([
    ["the local simulator", {}],
    ["a remote gateway", remote],
  ])("production with explicit secrets of 32+ characters starts (%s)", (_name, source) => {
    const env = parseEnv({ ...source, NODE_ENV: "production", WEBHOOK_SECRET: strong, CRON_SECRET: `${strong}x` });
    expect([env.WEBHOOK_SECRET, env.CRON_SECRET]).toEqual([strong, `${strong}x`]);
  });

  test.each([
    ["the local simulator", {}],
    ["a remote gateway", { GATEWAY_BASE_URL: "https://gateway.example.com" }],
  ])("`next build` (NODE_ENV=production) loads the routes without secrets (%s)", (_name, source) => {
    expect(() => parseEnv({ ...source, NODE_ENV: "production", NEXT_PHASE: "phase-production-build" })).not.toThrow();
  });

  test("`prisma generate` (the first half of `npm run build`) loads prisma.config.ts with NODE_ENV=production and no secrets", () => {
    // A build machine's environment: NODE_ENV exported by the buildpack, nothing else of ours.
    const loaded = spawnSync(process.execPath, ["--import", "tsx", "-e", "import('./prisma.config.ts').then((c) => console.log('schema', c.default.schema))"], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production" },
      encoding: "utf8",
    });
    expect(loaded.stderr).not.toMatch(/is required|Invalid environment/);
    expect(loaded.stdout).toMatch(/^schema prisma\/sqlite$/m);
    expect(loaded.status).toBe(0);
  });

  test("the database settings alone are read as the app reads them", () => {
    const source = { DATABASE_URL: "postgresql://u:p@db.example.com/app", DATABASE_POOL_MAX: "7", NODE_ENV: "production" };
    expect(parseDatabaseEnv(source)).toMatchObject({ DATABASE_URL: source.DATABASE_URL, DATABASE_DIRECT_URL: source.DATABASE_URL, DATABASE_POOL_MAX: 7 });
    expect(() => parseDatabaseEnv({ DATABASE_URL: "mysql://db" })).toThrow("DATABASE_URL");
  });

  test("a libSQL server URL is kept as it is; a file path is resolved against the project root", () => {
    expect(parseEnv({ DATABASE_URL: "libsql://db.example.turso.io" }).DATABASE_URL).toBe("libsql://db.example.turso.io");
    expect(parseEnv({ DATABASE_URL: "file:./other.db" }).DATABASE_URL).toBe(`file:${process.cwd()}/other.db`);
  });

  test.each(["postgres://u:p@db.example.com/app", "postgresql://u:p@db.example.com:5432/app?sslmode=require"])(
    "a PostgreSQL URL (%s) is kept as it is, and is its own direct URL unless one is given",
    (url) => {
      expect(parseEnv({ DATABASE_URL: url })).toMatchObject({ DATABASE_URL: url, DATABASE_DIRECT_URL: url, DATABASE_POOL_MAX: 5 });
      const direct = "postgresql://u:p@direct.example.com/app";
      expect(parseEnv({ DATABASE_URL: url, DATABASE_DIRECT_URL: direct }).DATABASE_DIRECT_URL).toBe(direct);
    },
  );
});
