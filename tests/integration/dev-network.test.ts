// `npm run dev` opened to the network (DEV_LISTEN_HOST=0.0.0.0): the app
// answers other machines, but the development mailbox (anyone's sign-in link)
// and the public development webhook secret (a forged purchase) answer only
// requests whose socket comes from this computer. "Another machine" is this
// machine's own non-loopback address: its packets never leave the machine,
// but the app's socket sees a peer that is not loopback, as it would for a
// laptop on the same Wi-Fi. SQLite only, as dev-server.test.ts.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { DEV_WEBHOOK_SECRET } from "@/lib/payments/settings";
import { testEngine } from "../support/test-database";

const DIST_DIR = ".next-devnet";
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-devnet-"));
/** This machine's first non-loopback IPv4 address: the "other machine" here. */
const elsewhere = Object.values(os.networkInterfaces())
  .flat()
  .find((address) => address && address.family === "IPv4" && !address.internal)?.address;
let dev: ChildProcess | undefined;
let output = "";
let port = 0;

describe.skipIf(testEngine() !== "sqlite" || !elsewhere)("npm run dev with DEV_LISTEN_HOST=0.0.0.0", () => {
  beforeAll(async () => {
    port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "development",
      PORT: String(port),
      DEV_LISTEN_HOST: "0.0.0.0",
      DATABASE_URL: `file:${path.join(DIR, "dev.db")}`,
      GATEWAY_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      PAYMENTS_SIMULATOR_URL: `http://127.0.0.1:${await freePort()}`,
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      MEDIA_LOCAL_DIR: path.join(DIR, "media"),
      NEXT_DIST_DIR: DIST_DIR,
    };
    for (const name of ["SMTP_URL", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SIMULATOR_HOST", "PAYMENTS_SIMULATOR_HOST"]) delete env[name];
    const child = spawn(process.execPath, [path.join("node_modules", "tsx", "dist", "cli.mjs"), "scripts/dev.ts"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    dev = child;
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 120_000;
    while (!(await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false))) {
      if (child.exitCode !== null) throw new Error(`npm run dev exited (${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm run dev did not answer within 120 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 300_000);

  afterAll(async () => {
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

  const from = (host: string) => `http://${host}:${port}`;
  /** A Stripe-shaped event signed with the public development secret, as anyone can sign it. */
  const forgedEvent = () => {
    const payload = JSON.stringify({ id: `evt_${Date.now()}`, object: "event", type: "customer.created", data: { object: { id: "cus_1", object: "customer" } } });
    return { payload, signature: new Stripe("sk_test_x").webhooks.generateTestHeaderString({ payload, secret: DEV_WEBHOOK_SECRET }) };
  };
  const postEvent = (host: string) => {
    const { payload, signature } = forgedEvent();
    return fetch(`${from(host)}/api/webhooks/stripe`, { method: "POST", headers: { "Content-Type": "application/json", "Stripe-Signature": signature }, body: payload });
  };

  test("says it is open to the network", () => {
    expect(output).toContain("DEV_LISTEN_HOST=0.0.0.0");
    expect(output).toMatch(/answer other machines on your network/);
  });

  test("another machine gets the app, but not the development mailbox", async () => {
    expect((await fetch(`${from(elsewhere!)}/api/health`)).status).toBe(200);
    // The page compiles on its first request: tens of seconds on a busy machine.
    const remote = await fetch(`${from(elsewhere!)}/dev/mailbox`, { signal: AbortSignal.timeout(150_000) });
    expect(remote.status).toBe(404);
    // The mailbox's own words (its title is static metadata, in any answer of that path).
    expect(await remote.text()).not.toContain("emails land here, newest first");
    const local = await fetch(`${from("127.0.0.1")}/dev/mailbox`, { signal: AbortSignal.timeout(150_000) });
    expect(local.status).toBe(200);
    expect(await local.text()).toContain("emails land here, newest first");
  }, 300_000);

  test("an event signed with the public development secret is taken from this computer only", async () => {
    const remote = await postEvent(elsewhere!);
    expect(remote.status).toBe(401);
    expect(await remote.text()).toContain("only from this computer");
    const local = await postEvent("127.0.0.1");
    expect(local.status, await local.clone().text()).toBe(200);
  }, 300_000);
});
