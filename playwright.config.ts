import fs from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// The app and its simulator, on ports of their own so a developer's
// `npm run dev` can keep running beside the tests.
// E2E_APP_PORT / E2E_SIMULATOR_PORT move them, e.g. to run two suites at once.
// TEST_DATABASE=postgres runs the same flows on PostgreSQL (a throwaway server
// tests/e2e/start-server.ts starts), on ports of their own by default.
const POSTGRES = process.env.TEST_DATABASE === "postgres";
export const APP_PORT = Number(process.env.E2E_APP_PORT ?? (POSTGRES ? 3150 : 3100));
export const SIMULATOR_URL = `http://127.0.0.1:${process.env.E2E_SIMULATOR_PORT ?? (POSTGRES ? 4150 : 4110)}`;
// The payments simulator (Stripe's stand-in), which npm start runs when PAYMENTS_SIMULATOR_URL names a local one.
export const PAYMENTS_SIMULATOR_URL = `http://127.0.0.1:${process.env.E2E_PAYMENTS_SIMULATOR_PORT ?? (POSTGRES ? 4151 : 4111)}`;
// Sign-in emails: an SMTP server on loopback (tests/e2e/start-server.ts), its inbox as JSON for the flows.
// Clear of the other offsets the flows use for extra servers (+7, +9, +11).
const SMTP_PORT = APP_PORT + 13;
const MAILBOX_PORT = APP_PORT + 14;
export const E2E_MAILBOX_URL = `http://127.0.0.1:${MAILBOX_PORT}`;
export const E2E_DATABASE_URL = POSTGRES
  ? `postgresql://postgres@127.0.0.1:${process.env.E2E_POSTGRES_PORT ?? APP_PORT + 2000}/framehook_e2e`
  : `file:./data/e2e-${APP_PORT}.db`;
// A build per engine (the Prisma client is generated for one), so that this
// run never leaves .next built for PostgreSQL. Workers and the web server inherit it.
if (POSTGRES) process.env.NEXT_DIST_DIR ??= ".next-postgres";
const baseURL = `http://127.0.0.1:${APP_PORT}`;
// Distinctive secrets, so that tests/e2e/secrets.spec.ts can search for them
// in what the browser receives.
export const E2E_GATEWAY_API_KEY = "fh-e2e-gateway-key-7Qx2vLr9Tz4mWc8N";
export const E2E_WEBHOOK_SECRET = "fh-e2e-webhook-secret-Kp3sH6dYb1Rf5Ju0";
export const E2E_ADMIN_PASSWORD = "fh-e2e-admin-password-Vt7Nq2";
// `next start` is production: it refuses to start without both secrets (32+ characters).
export const E2E_CRON_SECRET = "fh-e2e-cron-secret-Vb7nQ2xLm4Zr8Tk1Wd6";
export const E2E_STRIPE_WEBHOOK_SECRET = "whsec_fh_e2e_Qd4Wn7Zs1Lp9Tx3Hc6";

// Playwright never downloads a browser here: it drives the system Chromium.
const SYSTEM_CHROMIUM = "/usr/bin/chromium";
const CHROMIUM = fs.existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined;
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

const browser = { ...devices["Desktop Chrome"], launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS } };

/** The app's environment in these tests (a second instance reuses it: tests/e2e/live-gallery.spec.ts). */
export const E2E_APP_ENV: Record<string, string> = {
  PORT: String(APP_PORT),
  DATABASE_URL: E2E_DATABASE_URL,
  TEST_DATABASE: POSTGRES ? "postgres" : "sqlite",
  MEDIA_LOCAL_DIR: `./data/e2e-${APP_PORT}-media`,
  GATEWAY_BASE_URL: SIMULATOR_URL,
  PUBLIC_BASE_URL: baseURL,
  POLL_STALE_MS: "2000",
  SIMULATOR_PENDING_MS: "2000",
  SIMULATOR_PENDING_JITTER_MS: "500",
  SIMULATOR_START_CREDITS: "1000",
  GATEWAY_API_KEY: E2E_GATEWAY_API_KEY,
  SIMULATOR_API_KEY: E2E_GATEWAY_API_KEY,
  WEBHOOK_SECRET: E2E_WEBHOOK_SECRET,
  CRON_SECRET: E2E_CRON_SECRET,
  PAYMENTS_SIMULATOR_URL,
  SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
  E2E_SMTP_PORT: String(SMTP_PORT),
  E2E_MAILBOX_PORT: String(MAILBOX_PORT),
  STRIPE_WEBHOOK_SECRET: E2E_STRIPE_WEBHOOK_SECRET,
  // Every flow submits and uploads from 127.0.0.1; the limits have their own tests (upload-quotas).
  SUBMIT_RATE_LIMIT: "0",
  // Every test client is 127.0.0.1: the limits on Stripe calls are off but where a test sets them.
  CHECKOUT_RATE_LIMIT: "0",
  CHECKOUT_STATUS_RATE_LIMIT: "0",
  UPLOAD_RATE_LIMIT: "0",
  UPLOAD_ADDRESS_QUOTA_BYTES: "0",
  // Every visitor's welcome grant covers whatever a flow submits; ledger.spec.ts leaves one visitor short.
  CREDITS_WELCOME_GRANT: "1000000",
  // Every flow's visitors come from 127.0.0.1: no bound on welcome grants per address.
  CREDITS_WELCOME_GRANTS_PER_ADDRESS: "0",
  // The instance-wide ceiling too: set high, so that the doctor sees one (tests/integration/welcome-ceiling.test.ts sets a small one).
  CREDITS_WELCOME_GRANTS_PER_DAY: "100000000",
  // Per visitor (each test's browser context is one): owners.spec.ts fills it; other flows stay far below.
  SPEND_LIMIT_CREDITS: "6",
  // Every flow's visitors share 127.0.0.1: the address cap has its own tests (spend-caps-anonymous).
  SPEND_LIMIT_ADDRESS_CREDITS: "0",
  ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
  // Event streams end (and browsers reconnect) often, so tests/e2e/live-gallery.spec.ts sees it.
  EVENTS_STREAM_SECONDS: "8",
  NEXT_TELEMETRY_DISABLED: "1",
};

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  // A retry shows a flake in the report; it never turns a flake into a pass on CI.
  failOnFlakyTests: !!process.env.CI,
  workers: 2,
  // A hang detector: a long flow (two uploads, a generation, a remix, two axe
  // scans) outlasted 60 s twice at load average ~30 on 2 cores. What a step
  // waits for has its own bound (expect's timeout).
  timeout: 180_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : [["list"]],
  // A run on other ports keeps its artifacts apart from the default run's.
  outputDir: process.env.E2E_APP_PORT || POSTGRES ? `test-results/port-${APP_PORT}` : "test-results",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    // Video recording needs a Playwright-downloaded ffmpeg, which this kit
    // never downloads; traces on failure carry a screencast instead.
    video: "off",
  },
  projects: [
    {
      name: "chromium",
      testIgnore: /ledger\.spec\.ts/,
      use: browser,
    },
    {
      // Flows that read the gateway's balance run last and alone: it is the one
      // thing parallel tests cannot keep apart.
      name: "ledger",
      testMatch: /ledger\.spec\.ts/,
      dependencies: ["chromium"],
      use: browser,
    },
  ],
  webServer: {
    // The build the integration suites already made for this engine, unless a source changed since (scripts/test-build.ts).
    command: "node --import tsx scripts/test-build.ts && node --import tsx tests/e2e/start-server.ts",
    url: `${baseURL}/api/health`,
    reuseExistingServer: !process.env.CI,
    // A production build (when stale) on a shared 2-core machine: allow for a slow one.
    timeout: 480_000,
    stdout: "pipe",
    env: E2E_APP_ENV,
  },
});
