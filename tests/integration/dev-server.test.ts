// `npm run dev` as the README has it: migrates a fresh SQLite database, starts
// the simulator and `next dev`, and the page works in a browser whether it is
// opened at localhost or at 127.0.0.1 (Next 16's dev server refuses its
// scripts to origins it was not started for: the page renders but never
// hydrates). SQLite only: `npm run dev` on SQLite is the zero-configuration path,
// and it regenerates the Prisma client for its database.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { listeningAddresses } from "../support/listening";
import { testEngine } from "../support/test-database";

const DIST_DIR = ".next-devtest";
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-dev-"));
let dev: ChildProcess | undefined;
let output = "";
let port = 0;
let simulatorPort = 0;
let devEnv: NodeJS.ProcessEnv = process.env;
let browser: Browser | undefined;

describe.skipIf(testEngine() !== "sqlite")("npm run dev", () => {
  beforeAll(async () => {
    port = await freePort();
    simulatorPort = await freePort();
    const env: NodeJS.ProcessEnv = (devEnv = {
      ...process.env,
      NODE_ENV: "development",
      PORT: String(port),
      DATABASE_URL: `file:${path.join(DIR, "dev.db")}`,
      GATEWAY_BASE_URL: `http://127.0.0.1:${simulatorPort}`,
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      MEDIA_LOCAL_DIR: path.join(DIR, "media"),
      // Its own build directory, named in tsconfig.json (else next dev adds it there): a developer's `npm run dev` may hold .next's lock.
      NEXT_DIST_DIR: DIST_DIR,
    });
    const child = spawn(process.execPath, [path.join("node_modules", "tsx", "dist", "cli.mjs"), "scripts/dev.ts"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    dev = child;
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 120_000;
    while (!(await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false))) {
      if (child.exitCode !== null) throw new Error(`npm run dev exited (${dev.exitCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm run dev did not answer within 120 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // The first request compiles the page (tens of seconds on a busy machine): once, before the browsers.
    expect((await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(150_000) })).status).toBe(200);
    browser = await chromium.launch({ executablePath: fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    // The whole group: tsx, the simulator and next dev with its workers.
    if (dev?.pid) {
      try {
        process.kill(-dev.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    fs.rmSync(DIR, { recursive: true, force: true });
    fs.rmSync(DIST_DIR, { recursive: true, force: true });
  });

  // First, while the routes the doctor asks have never been asked (each compiles on its first request).
  test("the doctor's first run waits for routes still compiling, and never says the running app is not there", async () => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/doctor.ts"], { env: devEnv, stdio: ["ignore", "pipe", "pipe"] });
    let doctorOutput = "";
    child.stdout.on("data", (chunk: Buffer) => (doctorOutput += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (doctorOutput += chunk.toString()));
    await new Promise((resolve) => child.on("close", resolve));
    expect(doctorOutput).not.toContain("nothing answers");
    expect(doctorOutput, doctorOutput).toMatch(/^✓ Callbacks: .*reaches the receiver/m);
  }, 300_000);

  test("the app and the simulator listen on this computer only (loopback), as nobody set DEV_LISTEN_HOST", () => {
    const loopback = ["127.0.0.1", "::1"];
    for (const listened of [port, simulatorPort]) {
      const addresses = listeningAddresses(listened);
      if (addresses === null) return; // no /proc/net: not Linux
      expect(addresses.length, `port ${listened} is listened on`).toBeGreaterThan(0);
      expect(addresses.filter((address) => !loopback.includes(address)), `port ${listened}`).toEqual([]);
    }
  });

  for (const host of ["localhost", "127.0.0.1"]) {
    test(`the gallery opened at ${host} comes alive: its live updates connect and the form submits`, async () => {
      const context = await browser!.newContext({ baseURL: `http://${host}:${port}` });
      const page = await context.newPage();
      try {
        await page.goto("/", { timeout: 120_000 });
        // Only a hydrated page opens the event stream: the indicator then reads Live.
        await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status"), { timeout: 90_000 }).toBe("live");
        await page.getByLabel("Prompt", { exact: true }).fill(`A kite over the dunes at ${host}`);
        await page.getByRole("button", { name: "Generate video" }).click();
        await expect
          .poll(() => page.getByRole("article", { name: `Generation: A kite over the dunes at ${host}` }).getAttribute("data-state"), { timeout: 60_000 })
          .toBe("SUCCESS");
      } finally {
        await context.close();
      }
    }, 300_000);
  }
});
