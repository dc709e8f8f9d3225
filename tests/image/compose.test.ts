// compose.yaml itself, whole: `docker-compose --profile demo up -d` on the
// image just built and on local stand-ins for the registry images CI cannot
// pull (deploy/local-images/: PostgreSQL and nginx from Debian's packages,
// s3rver and an SMTP server in place of SeaweedFS and Mailpit, their commands
// swapped by deploy/compose.local-images.yaml). What this proves is the file:
// the jobs run and complete before any instance starts, the instances start
// healthy before the proxy, the environment reaches them (database, bucket,
// secrets, the demo's gateway simulator), and the volumes go with `down -v`.
// What a person does through the proxy is tests/image/topology.test.ts's.
//
// Run by `npm run test:image` (scripts/image-check.sh builds the images and
// names them in FRAMEHOOK_IMAGE, FRAMEHOOK_SIMULATORS_IMAGE, POSTGRES_IMAGE,
// PROXY_IMAGE, S3_IMAGE and MAIL_IMAGE). compose.yaml's ports are fixed
// (host networking): 5432, 8333, 3001, 3002, 8080, 4010, 4020 and 1025 must be free.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SseReader } from "../support/sse-reader";
import { cookieVisitor } from "../support/visitor";
import { waitFor } from "../support/wait";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const DOCKER = process.env.DOCKER ?? "docker";
const COMPOSE = process.env.DOCKER_COMPOSE ?? "docker-compose";
const project = `framehook-compose-${process.pid}`;
const files = ["-f", "compose.yaml", "-f", "deploy/compose.local-images.yaml"];
const proxyUrl = "http://127.0.0.1:8080";
const hex = (bytes: number) => crypto.randomBytes(bytes).toString("hex");

const keyFile = path.join(process.env.TMPDIR ?? "/tmp", "framehook-ci-server-actions-key");
const composeEnv = {
  ...process.env,
  COMPOSE_PROJECT_NAME: project,
  FRAMEHOOK_IMAGE: process.env.FRAMEHOOK_IMAGE ?? "framehook:ci",
  FRAMEHOOK_SIMULATORS_IMAGE: process.env.FRAMEHOOK_SIMULATORS_IMAGE ?? "framehook-simulators:ci",
  POSTGRES_IMAGE: process.env.POSTGRES_IMAGE ?? "framehook-postgres:ci",
  PROXY_IMAGE: process.env.PROXY_IMAGE ?? "framehook-nginx:ci",
  S3_IMAGE: process.env.S3_IMAGE ?? "framehook-standins:ci",
  MAIL_IMAGE: process.env.MAIL_IMAGE ?? "framehook-standins:ci",
  // The secrets compose.yaml requires, as an operator's .env gives them.
  POSTGRES_PASSWORD: hex(16),
  S3_SECRET_ACCESS_KEY: hex(16),
  WEBHOOK_SECRET: hex(32),
  CRON_SECRET: hex(32),
  // The key the image was built with (scripts/image-check.sh keeps one per machine).
  NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: process.env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY ?? fs.readFileSync(keyFile, "utf8"),
};
const compose = (...args: string[]) => run(COMPOSE, [...files, "--profile", "demo", ...args], { cwd: root, env: composeEnv, maxBuffer: 64 * 1024 * 1024 });
const docker = (...args: string[]) => run(DOCKER, args, { maxBuffer: 64 * 1024 * 1024 });

type ContainerState = { Status: string; ExitCode: number; StartedAt: string; FinishedAt: string; Health?: { Status: string } };
/** A service's container state, as `docker inspect` reports it. */
async function state(service: string): Promise<ContainerState> {
  const { stdout: id } = await compose("ps", "-q", service);
  expect(id.trim(), `${service} has a container`).not.toBe("");
  const { stdout } = await docker("inspect", "--format", "{{json .State}}", id.trim());
  return JSON.parse(stdout) as ContainerState;
}

/** Something already answers on 127.0.0.1:port. */
const busy = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

let upSeconds = 0;

beforeAll(async () => {
  const taken = [];
  for (const port of [5432, 8333, 3001, 3002, 8080, 4010, 4020, 1025]) if (await busy(port)) taken.push(port);
  if (taken.length) throw new Error(`compose.yaml's ports are taken on this machine: ${taken.join(", ")}`);
  const started = Date.now();
  await compose("up", "-d");
  // `up -d` returns once the proxy is created; the proxy answering ready is the event that counts.
  await waitFor(async () => (await fetch(`${proxyUrl}/api/ready`).catch(() => null))?.status === 200, 300_000, "the proxy's /api/ready to answer 200");
  upSeconds = (Date.now() - started) / 1000;
  console.log(`[compose] docker-compose up -d → ready through :8080 in ${upSeconds.toFixed(1)} s`);
}, 600_000);

afterAll(async () => {
  const logs = await compose("logs", "--no-color", "--tail", "30").then((l) => l.stdout, () => "");
  console.log(`[compose] last lines:\n${logs}`);
  await compose("down", "-v", "--remove-orphans");
  const { stdout: volumes } = await docker("volume", "ls", "-q", "--filter", `name=${project}`);
  expect(volumes.trim(), "down -v removes the volumes").toBe("");
}, 300_000);

describe("compose.yaml, whole, with the demo profile", () => {
  test("the jobs completed before the instances started, the instances were healthy before the proxy, and it answers ready", async () => {
    const [postgres, s3, bucket, migrate, app1, app2, proxy] = await Promise.all(["postgres", "s3", "bucket", "migrate", "app1", "app2", "proxy"].map(state));
    for (const job of [bucket!, migrate!]) expect(job).toMatchObject({ Status: "exited", ExitCode: 0 });
    for (const service of [postgres!, s3!, app1!, app2!]) expect(service.Health?.Status).toBe("healthy");
    expect(proxy!.Status).toBe("running");
    const at = (time: string) => Date.parse(time);
    // depends_on: the migration job after PostgreSQL's health check, the bucket job after the store's.
    expect(at(migrate!.StartedAt)).toBeGreaterThanOrEqual(at(postgres!.StartedAt));
    expect(at(bucket!.StartedAt)).toBeGreaterThanOrEqual(at(s3!.StartedAt));
    for (const app of [app1!, app2!]) {
      expect(at(app.StartedAt)).toBeGreaterThanOrEqual(at(migrate!.FinishedAt));
      expect(at(app.StartedAt)).toBeGreaterThanOrEqual(at(bucket!.FinishedAt));
      // The proxy waited for both instances' health checks, which pass only once /api/ready does.
      expect(at(proxy!.StartedAt)).toBeGreaterThan(at(app.StartedAt));
    }
    const ready = await fetch(`${proxyUrl}/api/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { shutdown: "running", database: "ok", migrations: "ok", storage: "ok" } });
    for (const port of [3001, 3002]) expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
  });

  test("a submit through :8080 goes to the demo's gateway simulator and turns SUCCESS on the visitor's live stream", async () => {
    const visitor = cookieVisitor(proxyUrl);
    const stream = await SseReader.open(`${proxyUrl}/api/generations/events`, { Cookie: await visitor.cookieHeader() });
    try {
      expect(stream.response.status).toBe(200);
      const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "a harbour at dawn", duration: 2 } } });
      expect(response.status, await response.clone().text()).toBe(201);
      const { id } = (await response.json()) as { id: string };
      await waitFor(() => stream.changes().some((change) => change.id === id && change.state === "SUCCESS"), 180_000, "SUCCESS on the live stream");
      // The row, read through the other route, as the gallery reads it.
      expect(((await (await visitor(`/api/generations/${id}`)).json()) as { state: string }).state).toBe("SUCCESS");
    } finally {
      stream.close();
    }
  });
});
