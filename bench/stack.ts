// The system under test: a production build of the app (`next build` into
// .next-bench), `next start` and the gateway simulator on loopback ports of
// their own, and a fresh SQLite database in a temporary directory.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { SimulatorControl } from "../tests/support/simulator-control";
import { runProcess, startProcess, stopProcess } from "./processes";

export const DIST_DIR = ".next-bench";
const BIN = path.resolve("node_modules/.bin");

export type Stack = {
  appUrl: string;
  simulatorUrl: string;
  databaseUrl: string;
  webhookSecret: string;
  pollStaleMs: number;
  workDir: string;
  /** The `next start` process, whose memory benchmark 6 samples. */
  appPid: number;
  simulator: SimulatorControl;
  stop: () => Promise<void>;
};

/** `next build` rewrites tsconfig.json to include the build directory's types: put the file back as it was. */
export async function buildApp({ workDir }: { workDir: string }): Promise<number> {
  const started = Date.now();
  const tsconfig = fs.readFileSync("tsconfig.json", "utf8");
  try {
    await runProcess(path.join(BIN, "next"), ["build"], {
      env: { ...process.env, NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: "1" },
      log: path.join(workDir, "build.log"),
      timeoutMs: 5 * 60_000,
    });
  } finally {
    restoreTsconfig(tsconfig);
  }
  // Keeps the build output out of `git status` without touching the project's .gitignore.
  fs.writeFileSync(path.join(DIST_DIR, ".gitignore"), "*\n");
  return (Date.now() - started) / 1000;
}

/** Only the build's own edit is undone: a change someone else made meanwhile is kept. */
function restoreTsconfig(before: string) {
  const after = fs.readFileSync("tsconfig.json", "utf8");
  if (after === before) return;
  const parsed = JSON.parse(after) as { include?: string[] };
  parsed.include = parsed.include?.filter((entry) => !entry.startsWith(`${DIST_DIR}/`));
  if (JSON.stringify(parsed) === JSON.stringify(JSON.parse(before))) fs.writeFileSync("tsconfig.json", before);
}

export async function startStack({ workDir, appPort, simulatorPort }: { workDir: string; appPort: number; simulatorPort: number }): Promise<Stack> {
  await Promise.all([assertPortFree(appPort), assertPortFree(simulatorPort)]);
  const appUrl = `http://127.0.0.1:${appPort}`;
  const simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
  const databaseUrl = `file:${path.join(workDir, "bench.db")}`;
  const webhookSecret = "bench-webhook-secret-0123456789abcdef";
  const pollStaleMs = 4000;

  await runProcess(path.join(BIN, "prisma"), ["migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    log: path.join(workDir, "migrate.log"),
    timeoutMs: 60_000,
  });

  const simulator = startProcess(process.execPath, ["--import", "tsx", "simulator/main.ts"], {
    env: {
      ...process.env,
      SIMULATOR_HOST: "127.0.0.1",
      SIMULATOR_PORT: String(simulatorPort),
      SIMULATOR_LOG: "quiet",
      SIMULATOR_START_CREDITS: "1000000",
    },
    log: path.join(workDir, "simulator.log"),
  });
  const app = startProcess(path.join(BIN, "next"), ["start", "-p", String(appPort), "-H", "127.0.0.1"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_DIST_DIR: DIST_DIR,
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: databaseUrl,
      GATEWAY_BASE_URL: simulatorUrl,
      PUBLIC_BASE_URL: appUrl,
      WEBHOOK_SECRET: webhookSecret,
      // Production refuses to start without a cron secret of 32+ characters.
      CRON_SECRET: "bench-cron-secret-0123456789abcdef0123",
      POLL_STALE_MS: String(pollStaleMs),
      // The polling benchmark submits 20 tasks at once from one address.
      SUBMIT_RATE_LIMIT: "0",
      // Empty means unset (lib/env.ts): no access gate in front of the routes.
      APP_PASSWORD: "",
      // Copied results go to the run's temp dir (benchmark 6), never to the project's data/.
      MEDIA_LOCAL_DIR: path.join(workDir, "media"),
    },
    log: path.join(workDir, "app.log"),
  });
  const stop = async () => {
    await Promise.all([stopProcess(app), stopProcess(simulator)]);
  };
  try {
    await waitUntilUp(`${simulatorUrl}/__control/scenarios`, 30_000);
    await waitUntilUp(`${appUrl}/api/health`, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { appUrl, simulatorUrl, databaseUrl, webhookSecret, pollStaleMs, workDir, appPid: app.pid!, simulator: new SimulatorControl(simulatorUrl), stop };
}

async function waitUntilUp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", () => reject(new Error(`port ${port} is in use; set BENCH_APP_PORT / BENCH_SIMULATOR_PORT`)));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
  });
}
