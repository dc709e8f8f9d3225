// The system under test: a production build of the app (`next build` into a
// folder per engine), `next start` and the gateway simulator on loopback ports
// of their own, and a fresh database in a temporary directory: a SQLite file,
// or a throwaway PostgreSQL server (scripts/local-postgres.ts) the stack starts
// and stops itself.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { freePort } from "../scripts/free-port";
import { appEnvironment } from "../scripts/app-environment";
import { adminQuery, ensureDatabase, limitRoleLockWait, startLocalPostgres, type LocalPostgres } from "../scripts/local-postgres";
import { migrateDatabase } from "../lib/database/migrations/migrate";
import { SimulatorControl } from "../tests/support/simulator-control";
import { distDirOf, sampleUrlOf, type BenchEngine } from "./engines";
import { EVENT_LOOP_PROBE, EventLoopProbe } from "./event-loop";
import { onStopAll, runProcess, startProcess, stopProcess } from "./processes";

const BIN = path.resolve("node_modules/.bin");

export type Stack = {
  appUrl: string;
  simulatorUrl: string;
  engine: BenchEngine;
  databaseUrl: string;
  webhookSecret: string;
  pollStaleMs: number;
  workDir: string;
  /** The `next start` process, whose memory benchmark 6 samples. */
  appPid: number;
  simulator: SimulatorControl;
  /** Event-loop delay of the `next start` process (bench/event-loop-probe.mjs, loaded into that process only). */
  eventLoop: EventLoopProbe;
  /** Another `next start` on the same database and simulator, e.g. with a setting changed, for a comparison in the same run. */
  startApp: (options: { port: number; env?: Record<string, string>; log: string }) => Promise<BenchApp>;
  stop: () => Promise<void>;
};

export type BenchApp = { url: string; pid: number; eventLoop: EventLoopProbe; stop: () => Promise<void> };

/** `next build` rewrites tsconfig.json to include the build directory's types: put the file back as it was. */
/** Builds with the Prisma client generated at that moment, which must be the engine's (bench/run.ts sees to it). */
export async function buildApp({ workDir, engine }: { workDir: string; engine: BenchEngine }): Promise<number> {
  const started = Date.now();
  const distDir = distDirOf(engine);
  const tsconfig = fs.readFileSync("tsconfig.json", "utf8");
  try {
    await runProcess(path.join(BIN, "next"), ["build"], {
      // Collecting page data creates the app's client, which checks the URL's engine against the generated client's.
      env: { ...process.env, ...(engine === "postgres" ? { DATABASE_URL: sampleUrlOf(engine) } : {}), NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1" },
      log: path.join(workDir, `build-${engine}.log`),
      timeoutMs: 5 * 60_000,
    });
  } finally {
    restoreTsconfig(tsconfig, distDir);
  }
  // Keeps the build output out of `git status` without touching the project's .gitignore.
  fs.writeFileSync(path.join(distDir, ".gitignore"), "*\n");
  return (Date.now() - started) / 1000;
}

/** Only the build's own edit is undone: a change someone else made meanwhile is kept. */
function restoreTsconfig(before: string, distDir: string) {
  const after = fs.readFileSync("tsconfig.json", "utf8");
  if (after === before) return;
  const parsed = JSON.parse(after) as { include?: string[] };
  parsed.include = parsed.include?.filter((entry) => !entry.startsWith(`${distDir}/`));
  if (JSON.stringify(parsed) === JSON.stringify(JSON.parse(before))) fs.writeFileSync("tsconfig.json", before);
}

export async function startStack({ workDir, engine, appPort, simulatorPort }: { workDir: string; engine: BenchEngine; appPort: number; simulatorPort: number }): Promise<Stack> {
  await Promise.all([assertPortFree(appPort), assertPortFree(simulatorPort)]);
  const simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
  const webhookSecret = "bench-webhook-secret-0123456789abcdef";
  const pollStaleMs = 4000;

  const postgres = engine === "postgres" ? await startBenchPostgres(workDir) : undefined;
  const databaseUrl = postgres ? postgres.url("framehook_bench") : `file:${path.join(workDir, "bench.db")}`;
  try {
    await migrateDatabase({ databaseUrl, quiet: true });
  } catch (error) {
    await postgres?.stop();
    throw error;
  }

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
  /** One `next start` of the build on this stack's database and simulator; `env` adds to (or overrides) the bench's settings. */
  const startApp = async ({ port, env = {}, log }: { port: number; env?: Record<string, string>; log: string }): Promise<BenchApp> => {
    const url = `http://127.0.0.1:${port}`;
    const probePort = await freePort();
    const app = startProcess(path.join(BIN, "next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
      env: {
        // What `npm start` gives the app (MALLOC_ARENA_MAX on Linux), then the bench's settings.
        ...appEnvironment(),
        NODE_ENV: "production",
        NEXT_DIST_DIR: distDirOf(engine),
        NEXT_TELEMETRY_DISABLED: "1",
        // The bench's event-loop probe, in this process only: no route or module of the app knows of it.
        NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${EVENT_LOOP_PROBE}`].filter(Boolean).join(" "),
        BENCH_EVENT_LOOP_PORT: String(probePort),
        DATABASE_URL: databaseUrl,
        GATEWAY_BASE_URL: simulatorUrl,
        PUBLIC_BASE_URL: url,
        WEBHOOK_SECRET: webhookSecret,
        // Production refuses to start without a cron secret of 32+ characters.
        CRON_SECRET: "bench-cron-secret-0123456789abcdef0123",
        POLL_STALE_MS: String(pollStaleMs),
        // The polling benchmark submits 20 tasks at once from one address.
        SUBMIT_RATE_LIMIT: "0",
        // Benchmark 1 uploads a clip back to back beside its load, all from 127.0.0.1 (30 a minute by default).
        UPLOAD_RATE_LIMIT: "0",
        // …thousands of them (benchmark 7's rounds), never used by a submission: past the per-address and
        // instance-wide bounds on unused uploads (1.5 and 10 GB by default), each would be a quick 413.
        UPLOAD_ADDRESS_QUOTA_BYTES: "0",
        UPLOAD_UNUSED_TOTAL_BYTES: "0",
        // Each benchmark's owner submits hundreds of generations: a welcome grant that covers them
        // (the holds are still taken and settled, as in production).
        CREDITS_WELCOME_GRANT: "1000000000",
        // Every benchmark's owners come from 127.0.0.1: the grants' bound per address would leave all but three at 0.
        CREDITS_WELCOME_GRANTS_PER_ADDRESS: "0",
        // Benchmark 7 keeps 50 tabs of the bench owner open, all from 127.0.0.1:
        // past the stream caps for one owner (10) and one address (30).
        EVENTS_MAX_STREAMS_PER_OWNER: "100",
        EVENTS_MAX_STREAMS_PER_ADDRESS: "100",
        // Empty means unset (lib/env.ts): no access gate in front of the routes.
        APP_PASSWORD: "",
        // Copied results go to the run's temp dir (benchmark 6), never to the project's data/.
        MEDIA_LOCAL_DIR: path.join(workDir, "media"),
        ...env,
      },
      log: path.join(workDir, log),
    });
    const stopApp = () => stopProcess(app);
    try {
      await waitUntilUp(`${url}/api/health`, 60_000);
      const eventLoop = new EventLoopProbe(`http://127.0.0.1:${probePort}`);
      // The probe must sit in the process that serves the routes (next start serves them in its own process).
      const { pid } = await eventLoop.read();
      if (pid !== app.pid) throw new Error(`the event-loop probe answered from pid ${pid}, not next start's ${app.pid}`);
      return { url, pid: app.pid!, eventLoop, stop: stopApp };
    } catch (error) {
      await stopApp();
      throw error;
    }
  };

  const stopSimulatorAndDatabase = async () => {
    await stopProcess(simulator);
    await postgres?.stop();
  };
  // The simulator and the app start side by side: the app needs the gateway only once it is asked to submit.
  const [simulatorUp, appUp] = await Promise.allSettled([waitUntilUp(`${simulatorUrl}/__control/scenarios`, 30_000), startApp({ port: appPort, log: "app.log" })]);
  if (simulatorUp.status === "rejected" || appUp.status === "rejected") {
    if (appUp.status === "fulfilled") await appUp.value.stop();
    await stopSimulatorAndDatabase();
    throw simulatorUp.status === "rejected" ? simulatorUp.reason : (appUp as PromiseRejectedResult).reason;
  }
  const app = appUp.value;
  const stop = async () => {
    await app.stop();
    await stopSimulatorAndDatabase();
  };
  return {
    appUrl: app.url,
    simulatorUrl,
    engine,
    databaseUrl,
    webhookSecret,
    pollStaleMs,
    workDir,
    appPid: app.pid,
    simulator: new SimulatorControl(simulatorUrl),
    eventLoop: app.eventLoop,
    startApp,
    stop,
  };
}

/**
 * A throwaway PostgreSQL (system binaries, fsync off, data in the run's temp
 * dir), set up as tests/support/test-database.ts sets up its own.
 */
async function startBenchPostgres(workDir: string): Promise<LocalPostgres> {
  const logFile = path.join(workDir, "postgres.log");
  const log = (chunk: string) => fs.appendFileSync(logFile, chunk);
  const server = await startLocalPostgres({ dataDir: path.join(workDir, "postgres"), port: await freePort(), throwaway: true, log });
  const forget = onStopAll(server.stop);
  try {
    await ensureDatabase(server.url("postgres"), "framehook_bench");
    await limitRoleLockWait(server.url("postgres"));
    // For looking into a figure: BENCH_PG_LOG_SLOW_MS=20 logs every statement slower than that to postgres.log.
    const slowMs = Number(process.env.BENCH_PG_LOG_SLOW_MS ?? -1);
    if (slowMs >= 0) await adminQuery(server.url("postgres"), `ALTER ROLE postgres SET log_min_duration_statement = ${Math.floor(slowMs)}`);
    return {
      ...server,
      stop: async () => {
        forget();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
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
