// Integration tests run against real parts: a fresh SQLite file migrated with
// the committed migrations, and the gateway simulator in its own process.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let simulator: ChildProcess | undefined;
let dir: string | undefined;

export async function setup() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-test-"));
  const databaseUrl = `file:${path.join(dir, "test.db")}`;
  const migrate = spawnSync("node_modules/.bin/prisma", ["migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`prisma migrate deploy failed:\n${migrate.stdout}\n${migrate.stderr}`);

  const { url, child } = await startSimulator({ SIMULATOR_PENDING_MS: "300", SIMULATOR_PENDING_JITTER_MS: "0", SIMULATOR_LOG: "quiet" });
  simulator = child;
  Object.assign(process.env, {
    NODE_ENV: "test",
    DATABASE_URL: databaseUrl,
    GATEWAY_BASE_URL: url,
    GATEWAY_TIMEOUT_MS: "2000",
    POLL_STALE_MS: "1000",
    FRAMEHOOK_TEST_DIR: dir,
  });
}

export async function teardown() {
  simulator?.kill("SIGTERM");
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** Starts `simulator/main.ts` on a free port and resolves with its URL. */
export function startSimulator(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  // One process (not npx → tsx → node), so that killing it stops the simulator.
  const child = spawn(process.execPath, ["--import", "tsx", "simulator/main.ts"], {
    env: { ...process.env, SIMULATOR_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening on (http:\/\/[\d.:]+)/);
      if (match) resolve({ url: match[1]!, child });
    });
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`simulator did not start: ${output}`)), 30_000).unref();
  });
}
