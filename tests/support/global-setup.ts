// Integration tests run against real parts: a fresh database migrated with
// the committed migrations here (SQLite, or PostgreSQL with
// TEST_DATABASE=postgres: tests/support/test-database.ts), and
// (tests/support/app.ts) a gateway simulator process of each test file's own,
// so that files running in parallel never share a ledger or a scenario book.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClipLibrary } from "../../simulator/clips";
import { startTestDatabase } from "./test-database";

/** The secrets every app the tests start runs with (a test may set others). */
export const TEST_SECRETS = {
  WEBHOOK_SECRET: "fh-test-webhook-secret-Qm4vT8zRk2Lw6Yp0Hd3",
  CRON_SECRET: "fh-test-cron-secret-Jx7cN1sGf5Bv9Ke2Ua6Z",
  ADMIN_PASSWORD: "fh-test-admin-password-Wr5Ty8",
};

/**
 * Every test simulator's defaults: one look for every prompt, so that the six clips setup()
 * makes serve every test (tests/simulator/media.test.ts tries the looks in a simulator of its own).
 */
const TEST_SIMULATOR_ENV = { SIMULATOR_PORT: "0", SIMULATOR_CLIP_LOOKS: "1" };

let dir: string | undefined;
let stopDatabase: (() => Promise<void>) | undefined;

export async function setup() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-test-"));
  // The simulators' real-size result clips in the one look they use (startSimulator), made once
  // per machine (seconds) before any test waits on one.
  const clips = createClipLibrary({ mode: "real-size", cacheDir: "", looks: Number(TEST_SIMULATOR_ENV.SIMULATOR_CLIP_LOOKS) });
  const [database] = await Promise.all([startTestDatabase(dir), clips.prepare()]);
  stopDatabase = database.stop;

  Object.assign(process.env, {
    NODE_ENV: "test",
    DATABASE_URL: database.url,
    GATEWAY_TIMEOUT_MS: "2000",
    SUBMIT_RATE_LIMIT: "0",
    // Every test client is 127.0.0.1: the limits on Stripe calls are off but where a test sets them.
    CHECKOUT_RATE_LIMIT: "0",
    CHECKOUT_STATUS_RATE_LIMIT: "0",
    // Every visitor's welcome grant covers whatever a test submits; the tests of running
    // out of credits set a small one for their app (tests/integration/credit-holds.test.ts).
    CREDITS_WELCOME_GRANT: "1000000",
    // Every test visitor comes from 127.0.0.1: the bound on grants per address is off (0) but where a test sets it.
    CREDITS_WELCOME_GRANTS_PER_ADDRESS: "0",
    // The instance-wide ceiling too: set high, so that the doctor sees one (tests/integration/welcome-ceiling.test.ts sets a small one).
    CREDITS_WELCOME_GRANTS_PER_DAY: "100000000",
    POLL_STALE_MS: "1000",
    FRAMEHOOK_TEST_DIR: dir,
    // Copied results go to the run's temp dir, never to the project's data/.
    MEDIA_LOCAL_DIR: path.join(dir, "media"),
    // The app runs as production (`next start`), which requires real secrets;
    // distinctive ones, so that tests can search for them where they must never be.
    ...TEST_SECRETS,
    ...database.env,
  });
}

export async function teardown() {
  await stopDatabase?.();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** Starts `simulator/main.ts` on a free port and resolves with its URL. */
export function startSimulator(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  return startServerProcess("simulator/main.ts", "simulator", { ...TEST_SIMULATOR_ENV, ...env });
}

/** Preloaded into every server the tests start as a process: it stops itself once the test process is gone. */
const EXIT_WITH_PARENT = path.join(import.meta.dirname, "exit-with-parent.cjs");

/**
 * Starts a simulator script as one process (not npx → tsx → node, so that
 * killing it stops the server) and resolves with the URL it prints on "listening on …".
 * It also stops itself if this process ends without stopping it (exit-with-parent.cjs).
 */
export function startServerProcess(script: string, name: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--require", EXIT_WITH_PARENT, "--import", "tsx", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening on (http:\/\/[\d.:]+)/);
      if (match) resolve({ url: match[1]!, child });
    });
    child.on("exit", (code) => reject(new Error(`${name} exited with ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`${name} did not start: ${output}`)), 30_000).unref();
  });
}
