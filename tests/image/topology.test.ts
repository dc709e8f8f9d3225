// The production image in the topology docs/operations.md describes: the
// migration job, then two instances of the image (host networking, as in
// compose.yaml) behind nginx with deploy/nginx.conf, on PostgreSQL, with an
// S3 bucket, the gateway and payments simulators and an SMTP server beside
// them. Everything a person does goes through the proxy: readiness, a submit
// that turns SUCCESS on both instances' live streams, a PNG and an MP4 upload
// (sharp and the container reader inside the image), the copy in the bucket,
// an email link, a purchase; then one instance is stopped with 50 live
// streams open through the proxy (the ones it held reconnect to the other),
// and once more under a callback storm, and every task is settled once, with
// one capture each; last, both instances restarted one after the other under
// submissions and callbacks (IMAGE_ROLLING_TASKS, default 200), nothing lost
// or doubled. compose.yaml itself is compose.test.ts's.
//
// Run by `npm run test:image` (CI's image phase, .ci/run) once the image is
// built: FRAMEHOOK_IMAGE names it (default framehook:ci). The PostgreSQL
// server, the bucket, the simulators, the mail server and nginx run on this
// machine as the tests run them elsewhere; no registry is needed.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { createClipLibrary } from "../../simulator/clips";
import { startLocalPostgres, type LocalPostgres } from "../../scripts/local-postgres";
import { askForLink, browserFor, confirmLink } from "../support/accounts";
import { startSimulator } from "../support/global-setup";
import { startMailSink } from "../support/mail-sink";
import { clip, image } from "../support/media-fixtures";
import { PaymentsControl, startPaymentsSimulator } from "../support/payments-simulator";
import { actionIdIn, type ActionManifest } from "../support/server-actions";
import { startS3Bucket, type S3Bucket } from "../support/s3-bucket";
import { SimulatorControl } from "../support/simulator-control";
import { SseReader } from "../support/sse-reader";
import { upload } from "../support/uploads";
import { cookieVisitor } from "../support/visitor";
import { waitFor } from "../support/wait";

const run = promisify(execFile);
const IMAGE = process.env.FRAMEHOOK_IMAGE ?? "framehook:ci";
const DOCKER = process.env.DOCKER ?? "docker";
const docker = (...args: string[]) => run(DOCKER, args, { maxBuffer: 64 * 1024 * 1024 });
const secret = () => crypto.randomBytes(24).toString("hex");

const work = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-image-"));
const names = { app1: `framehook-ci-app1-${process.pid}`, app2: `framehook-ci-app2-${process.pid}` };
const ports = { app1: await freePort(), app2: await freePort(), proxy: await freePort(), postgres: await freePort() };
const proxyUrl = `http://127.0.0.1:${ports.proxy}`;
const instanceUrl = (name: "app1" | "app2") => `http://127.0.0.1:${ports[name]}`;
const STRIPE_WEBHOOK_SECRET = `whsec_${secret()}`;

let postgres: LocalPostgres;
let db: pg.Client;
let bucket: S3Bucket;
let gateway: { url: string; child: ChildProcess };
let payments: { url: string; child: ChildProcess };
let mail: Awaited<ReturnType<typeof startMailSink>>;
let proxy: ChildProcess;
let appEnv: Record<string, string>;
const simulator = () => new SimulatorControl(gateway.url);

/** `docker run -d` of one instance, as compose.yaml's app1/app2. */
async function startInstance(name: "app1" | "app2") {
  const env = { ...appEnv, PORT: String(ports[name]) };
  await docker("run", "-d", "--network", "host", "--name", names[name], ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]), IMAGE);
  await instanceReady(name);
}
const instanceReady = (name: "app1" | "app2") =>
  waitFor(async () => (await fetch(`${instanceUrl(name)}/api/ready`).catch(() => null))?.status === 200, 120_000, `${name} ready`);

/** A server action's id in the image's build, read from its manifest (the ids are the build's). */
let manifest: ActionManifest;
const actionId = (exportedName: string) => actionIdIn(manifest, exportedName);

beforeAll(async () => {
  // The simulator's result clips, made once per machine, as the other suites' global setup does.
  await createClipLibrary({ mode: "real-size", cacheDir: "", looks: 1 }).prepare();
  postgres = await startLocalPostgres({ dataDir: path.join(work, "postgres"), port: ports.postgres, throwaway: true });
  bucket = await startS3Bucket({ name: "framehook" });
  mail = await startMailSink();
  gateway = await startSimulator({ SIMULATOR_CLIP_LOOKS: "1", SIMULATOR_PENDING_MS: "300", SIMULATOR_PENDING_JITTER_MS: "0", SIMULATOR_CALLBACK_BACKOFF_MS: "100", SIMULATOR_LOG: "quiet" });
  payments = await startPaymentsSimulator({
    PAYMENTS_SIMULATOR_WEBHOOK_URL: `${proxyUrl}/api/webhooks/stripe`,
    PAYMENTS_SIMULATOR_WEBHOOK_SECRET: STRIPE_WEBHOOK_SECRET,
    PAYMENTS_SIMULATOR_BACKOFF_MS: "100",
  });
  const databaseUrl = postgres.url("postgres");
  appEnv = {
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: proxyUrl,
    TRUSTED_PROXY_HOPS: "1",
    WEBHOOK_SECRET: secret(),
    CRON_SECRET: secret(),
    NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: process.env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY ?? "",
    GATEWAY_BASE_URL: gateway.url,
    SMTP_URL: mail.url,
    MAIL_FROM: "Framehook <no-reply@example.com>",
    PAYMENTS_SIMULATOR_URL: payments.url,
    STRIPE_WEBHOOK_SECRET,
    // Every client here is 127.0.0.1 behind the proxy: the per-address bounds would count them all as one.
    SUBMIT_RATE_LIMIT: "0",
    CHECKOUT_RATE_LIMIT: "0",
    CREDITS_WELCOME_GRANTS_PER_ADDRESS: "0",
    CREDITS_WELCOME_GRANT: "1000",
    // 50 live streams from 127.0.0.1, all on one instance once the other stops.
    EVENTS_MAX_STREAMS_PER_ADDRESS: "100",
    ...bucket.env,
  };
  manifest = JSON.parse((await docker("run", "--rm", "--entrypoint", "cat", IMAGE, "/app/.next/server/server-reference-manifest.json")).stdout) as ActionManifest;

  // Nothing migrates at start: the instances are not ready until the job has run.
  const { stdout } = await docker("run", "--rm", "--network", "host", "-e", `DATABASE_URL=${databaseUrl}`, IMAGE, "migrate");
  console.log(`[image] migrate: ${stdout.trim().split("\n").at(-1)}`);
  await Promise.all([startInstance("app1"), startInstance("app2")]);

  // The directives, not the comments that name the same addresses: both instances must be upstreams.
  const conf = fs
    .readFileSync(path.join(import.meta.dirname, "../../deploy/nginx.conf"), "utf8")
    .replace(/^(\s*server\s+)127\.0\.0\.1:3001\b/m, (_, directive: string) => `${directive}127.0.0.1:${ports.app1}`)
    .replace(/^(\s*server\s+)127\.0\.0\.1:3002\b/m, (_, directive: string) => `${directive}127.0.0.1:${ports.app2}`)
    .replace(/^(\s*)listen 8080;/m, (_, indent: string) => `${indent}listen 127.0.0.1:${ports.proxy};`);
  for (const port of [ports.app1, ports.app2]) expect(conf).toMatch(new RegExp(`^\\s*server\\s+127\\.0\\.0\\.1:${port}\\b`, "m"));
  expect(conf).toContain(`listen 127.0.0.1:${ports.proxy};`);
  fs.writeFileSync(path.join(work, "nginx.conf"), conf);
  proxy = spawn("nginx", ["-c", path.join(work, "nginx.conf"), "-p", work, "-e", "stderr", "-g", `daemon off; pid ${path.join(work, "nginx.pid")};`], { stdio: ["ignore", "inherit", "inherit"] });
  await waitFor(async () => (await fetch(`${proxyUrl}/api/ready`).catch(() => null))?.status === 200, 30_000, "the proxy answers");
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
}, 600_000);

afterAll(async () => {
  await db?.end().catch(() => {});
  const logs = await Promise.all(Object.values(names).map((name) => docker("logs", "--tail", "40", name).then((l) => `${name}:\n${l.stdout}${l.stderr}`, () => "")));
  console.log(`[image] instances' last lines:\n${logs.join("\n")}`);
  await docker("rm", "-f", ...Object.values(names)).catch(() => {});
  proxy?.kill("SIGTERM");
  for (const child of [gateway?.child, payments?.child]) child?.kill("SIGTERM");
  await mail?.close();
  await bucket?.close();
  await postgres?.stop();
  fs.rmSync(work, { recursive: true, force: true });
}, 120_000);

const query = async <T extends Record<string, unknown>>(sql: string, values: unknown[] = []) => (await db.query<T>(sql, values)).rows;

describe("the image behind the proxy", () => {
  test("both instances are live and ready, through the proxy and each on its own", async () => {
    for (const base of [proxyUrl, instanceUrl("app1"), instanceUrl("app2")]) {
      expect((await fetch(`${base}/api/health`)).status).toBe(200);
      const ready = await fetch(`${base}/api/ready`);
      expect(await ready.json()).toEqual({ ready: true, checks: { shutdown: "running", database: "ok", migrations: "ok", storage: "ok" } });
    }
  });

  test("a submit through the proxy turns SUCCESS on both instances' live streams, and its copy lands in the bucket", async () => {
    const visitor = cookieVisitor(proxyUrl);
    const cookie = await visitor.cookieHeader();
    const streams = await Promise.all(["app1", "app2"].map((name) => SseReader.open(`${instanceUrl(name as "app1")}/api/generations/events`, { Cookie: cookie })));
    try {
      const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "a lighthouse at dusk", duration: 2 } } });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      for (const stream of streams) await waitFor(() => stream.changes().some((c) => c.id === id && c.state === "SUCCESS"), 60_000, "SUCCESS on each instance's stream");
      const [copy] = await waitFor(async () => {
        const rows = await query<{ id: string; storageKey: string }>(`SELECT id, "storageKey" FROM "MediaCopy" WHERE "generationId" = $1 AND state = 'DONE'`, [id]);
        return rows.length ? rows : undefined;
      }, 60_000, "the copy DONE");
      const object = await fetch(`${bucket.url}/${copy!.storageKey}`);
      expect(object.status).toBe(200);
      expect((await object.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      // The owner's media route hands out the bucket's presigned URL.
      const media = await visitor(`/api/media/${copy!.id}`, { redirect: "manual" });
      expect(media.status).toBe(302);
      expect(media.headers.get("location")).toContain(bucket.env.S3_ENDPOINT!);
    } finally {
      streams.forEach((stream) => stream.close());
    }
  });

  test("a PNG and an MP4 upload are checked inside the image (sharp, the container reader) and kept", async () => {
    const visitor = cookieVisitor(proxyUrl);
    const png = await upload(visitor, image({ width: 640, height: 480 }), { type: "image/png" });
    expect(png.status, JSON.stringify(png.body)).toBe(201);
    const mp4 = await upload(visitor, clip({ seconds: 2 }), { model: "delta-h3/reference-to-video", field: "reference_video_urls", type: "video/mp4" });
    expect(mp4.status, JSON.stringify(mp4.body)).toBe(201);
    const rows = await query<{ id: string }>(`SELECT id FROM "Upload" WHERE id = ANY($1)`, [[png.body.id, mp4.body.id]]);
    expect(rows).toHaveLength(2);
  });

  test("an email link asked for through the proxy arrives, on the proxy's origin, and signs in with its button", async () => {
    const browser = browserFor(proxyUrl);
    await browser("/");
    const email = `image-${process.pid}@example.com`;
    const link = new URL(await askForLink({ sink: mail, browser, email, ids: actionId }));
    expect(link.origin).toBe(proxyUrl);
    const pressed = await confirmLink({ browser, link: link.href, ids: actionId });
    expect(pressed.status).toBeLessThan(400);
    expect(browser.jar.has("better-auth.session_token")).toBe(true);
    expect(await query(`SELECT id FROM "User" WHERE email = $1`, [email])).toHaveLength(1);
  });

  test("a purchase: Buy through the proxy, paid in the payments simulator, credited once by its webhook", async () => {
    const visitor = cookieVisitor(proxyUrl);
    const ownerId = await visitor.ownerId();
    const body = new FormData();
    body.set("_1_packId", "starter");
    body.set("0", JSON.stringify([{ status: "idle" }, "$K1"]));
    const bought = await visitor("/credits", { method: "POST", headers: { "Next-Action": actionId("buyCreditsAction"), Accept: "text/x-component" }, body, redirect: "manual" });
    const target = bought.headers.get("x-action-redirect") ?? bought.headers.get("location") ?? "";
    const sessionId = /cs_[A-Za-z0-9_]+/.exec(target)?.[0];
    expect(sessionId, `Buy sent the browser to ${target || bought.status}`).toBeTruthy();
    const control = new PaymentsControl(payments.url);
    await control.act(sessionId!, "pay");
    const purchase = await waitFor(async () => (await query<{ status: string; credits: number }>(`SELECT status, credits FROM "Purchase" WHERE "checkoutSessionId" = $1 AND status = 'PAID'`, [sessionId]))[0], 60_000, "the purchase PAID");
    expect(purchase).toMatchObject({ status: "PAID", credits: 100 });
    expect(await query(`SELECT id FROM "CreditEntry" WHERE "ownerId" = $1 AND kind = 'PURCHASE'`, [ownerId])).toHaveLength(1);
  });

  test("docker stop of one instance with 50 live streams open through the proxy: the streams it held reconnect, through the proxy, to the other, and every stream sees the next change", async () => {
    const STREAMS = 50;
    // Ten visitors with five tabs each (a visitor may keep ten streams on one instance).
    const visitors = Array.from({ length: 10 }, () => cookieVisitor(proxyUrl));
    const cookies = await Promise.all(visitors.map((visitor) => visitor.cookieHeader()));
    const open = (i: number, lastEventId?: string) =>
      SseReader.open(`${proxyUrl}/api/generations/events`, { Cookie: cookies[i % visitors.length]!, ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) });
    const streams = await Promise.all(Array.from({ length: STREAMS }, (_, i) => open(i)));
    // As a browser's EventSource does: a stream that ends reopens through the proxy with its last event's id.
    const reopened = new Map<number, Promise<SseReader>>();
    const reconnect = setInterval(() => {
      streams.forEach((stream, i) => {
        if (stream.ended && !reopened.has(i)) reopened.set(i, open(i, stream.messages.at(-1)?.id));
      });
    }, 20);
    try {
      expect(streams.map((stream) => stream.response.status)).toEqual(Array(STREAMS).fill(200));
      const stopped = Date.now();
      await docker("stop", "--time", "10", names.app1);
      const seconds = (Date.now() - stopped) / 1000;
      const { stdout: exitCode } = await docker("inspect", "--format", "{{.State.ExitCode}}", names.app1);
      expect(Number(exitCode.trim())).toBe(143);
      // app1 has exited: the streams it held have ended, and the proxy hands their reconnections to app2.
      await waitFor(() => reopened.size > 0, 30_000, "the stopped instance's streams to end");
      console.log(`[image] docker stop with ${STREAMS} live streams open through the proxy took ${seconds.toFixed(1)} s, exit ${exitCode.trim()}`);

      // Every stream, reopened or kept, is live: each visitor's next submit turns SUCCESS on all five of its tabs.
      const ids = await Promise.all(
        visitors.map(async (visitor, v) => {
          const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `a kite ${v}`, duration: 2 } } });
          expect(response.status, await response.clone().text()).toBe(201);
          return ((await response.json()) as { id: string }).id;
        }),
      );
      const live = async () => Promise.all(streams.map((stream, i) => reopened.get(i) ?? stream));
      await waitFor(
        async () => (await live()).every((stream, i) => stream.changes().some((change) => change.id === ids[i % visitors.length] && change.state === "SUCCESS")),
        120_000,
        "SUCCESS on all 50 streams",
      );
      // The stopped instance's streams were reopened, all taken by app2; the others stayed open on it.
      const again = await Promise.all(reopened.values());
      console.log(`[image] ${again.length} of the ${STREAMS} streams were on the stopped instance and reopened through the proxy`);
      expect(again.length).toBeLessThan(STREAMS);
      expect(again.map((stream) => stream.response.status)).toEqual(Array(again.length).fill(200));
      expect((await live()).filter((stream) => stream.ended)).toHaveLength(0);
    } finally {
      clearInterval(reconnect);
      const reopenedStreams = await Promise.all(reopened.values());
      [...streams, ...reopenedStreams].forEach((stream) => stream.close());
    }
    // Back to two instances for what follows.
    await docker("start", names.app1);
    await instanceReady("app1");
  });

  test("docker stop of one instance under a callback storm: it exits 143 within seconds, and every task is settled once, with one capture each", async () => {
    const TASKS = 40;
    const marker = `storm-${process.pid}`;
    // Every callback delivered three times, the tasks finishing over a few seconds, while app1 stops.
    await simulator().scenario({ match: marker, pendingMs: 1500, callback: { duplicates: 2 } });
    const visitors = Array.from({ length: 4 }, () => cookieVisitor(proxyUrl));
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const response = await visitors[i % visitors.length]!("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `a wave ${i} ${marker}`, duration: 2 } } });
      expect(response.status, await response.clone().text()).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }
    const stopped = Date.now();
    await docker("stop", "--time", "10", names.app1);
    const seconds = (Date.now() - stopped) / 1000;
    const { stdout: exitCode } = await docker("inspect", "--format", "{{.State.ExitCode}}", names.app1);
    console.log(`[image] docker stop took ${seconds.toFixed(1)} s, exit ${exitCode.trim()}`);
    expect(Number(exitCode.trim())).toBe(143);
    expect(seconds).toBeLessThan(10); // Docker's grace period: past it, the exit would be 137.

    const settled = await waitFor(async () => {
      const rows = await query<{ id: string; state: string }>(`SELECT id, state FROM "Generation" WHERE id = ANY($1)`, [ids]);
      return rows.every((row) => row.state === "SUCCESS") ? rows : undefined;
    }, 120_000, "every task SUCCESS");
    expect(settled).toHaveLength(TASKS);
    const captures = await query<{ generationId: string; n: string }>(
      `SELECT "generationId", count(*) AS n FROM "CreditEntry" WHERE "generationId" = ANY($1) AND kind = 'CAPTURE' GROUP BY "generationId"`,
      [ids],
    );
    expect(captures).toHaveLength(TASKS);
    expect(captures.every((row) => Number(row.n) === 1)).toBe(true);
    // The simulator delivered each task's callback several times, all through the proxy.
    const delivered = (await simulator().callbacks(marker)).filter((attempt) => attempt.status === 200);
    expect(delivered.length).toBeGreaterThanOrEqual(TASKS);
    expect((await fetch(`${proxyUrl}/api/ready`)).status).toBe(200);
  });

  test("a rolling restart under load: tasks submitted and their callbacks (three each) sent while app1, then app2, stop and start again: every task submitted once, SUCCESS, with one capture", { timeout: 900_000 }, async () => {
    // CI runs 200 (about a minute and a half here); BENCHMARKS.md's figure is IMAGE_ROLLING_TASKS=2000.
    const TASKS = Number(process.env.IMAGE_ROLLING_TASKS ?? 200);
    const marker = `rolling-${process.pid}`;
    const began = Date.now();
    // Both instances up (the storm above left app1 stopped), and gateway credits for every task.
    await docker("start", names.app1);
    await instanceReady("app1");
    await simulator().setCredits(1_000_000);
    await simulator().scenario({ match: marker, pendingMs: 2000, callback: { duplicates: 2 } });
    const visitors = Array.from({ length: 20 }, () => cookieVisitor(proxyUrl));
    const owners = await Promise.all(visitors.map((visitor) => visitor.ownerId()));

    // Submitters, as clients that retry with the same Idempotency-Key when an instance is stopping
    // (503) or gone mid-request: each key must make one generation however often it is sent.
    let next = 0;
    let retries = 0;
    const ids = new Map<number, string>();
    const submitter = async () => {
      for (let i = next++; i < TASKS; i = next++) {
        const visitor = visitors[i % visitors.length]!;
        const key = `${marker}-${i}`;
        for (;;) {
          const response = await visitor("/api/generations", {
            method: "POST",
            headers: { "Idempotency-Key": key },
            json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `a tide ${i} ${marker}`, duration: 2 } },
          }).catch(() => null);
          if (response && response.status < 300) {
            ids.set(i, ((await response.json()) as { id: string }).id);
            break;
          }
          const body = response ? await response.text() : "no answer";
          if (response && response.status !== 409 && response.status < 500) throw new Error(`submit ${i}: ${response.status} ${body}`);
          retries++;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    // The reconcile cron, as a deployment schedules it (every minute; here every 5 s): it settles a task whose
    // callbacks all met a stopped instance, as a poll would.
    let cronRuns = 0;
    const cron = setInterval(() => {
      cronRuns++;
      void fetch(`${proxyUrl}/api/cron/reconcile`, { headers: { Authorization: `Bearer ${appEnv.CRON_SECRET}` } }).then((r) => r.body?.cancel(), () => {});
    }, 5_000);
    const submitted = Promise.all(Array.from({ length: 8 }, submitter));
    // The restart begins once a tenth of the tasks are in, and goes on while the rest arrive and settle.
    await waitFor(() => ids.size >= TASKS / 10, 120_000, "a tenth of the tasks submitted");
    const restarts: string[] = [];
    for (const name of ["app1", "app2"] as const) {
      const t = Date.now();
      await docker("stop", "--time", "10", names[name]);
      const stopSeconds = (Date.now() - t) / 1000;
      await docker("start", names[name]);
      await instanceReady(name);
      restarts.push(`${name} stopped in ${stopSeconds.toFixed(1)} s, ready again ${((Date.now() - t) / 1000).toFixed(1)} s after the stop`);
    }
    await submitted;
    expect(ids.size).toBe(TASKS);

    const settled = await waitFor(async () => {
      const rows = await query<{ id: string; state: string }>(`SELECT id, state FROM "Generation" WHERE "ownerId" = ANY($1)`, [owners]);
      return rows.length >= TASKS && rows.every((row) => row.state === "SUCCESS") ? rows : undefined;
    }, 600_000, "every task SUCCESS").finally(() => clearInterval(cron));
    // One generation per task (no retried submit made a second), each SUCCESS.
    expect(settled).toHaveLength(TASKS);
    expect(new Set(settled.map((row) => row.id))).toEqual(new Set(ids.values()));
    const captures = await query<{ generationId: string; n: string }>(
      `SELECT "generationId", count(*) AS n FROM "CreditEntry" WHERE "generationId" = ANY($1) AND kind = 'CAPTURE' GROUP BY "generationId"`,
      [[...ids.values()]],
    );
    expect(captures).toHaveLength(TASKS);
    expect(captures.filter((row) => Number(row.n) !== 1)).toEqual([]);
    // What the simulator's callbacks did (three copies a task, retried when they met no live instance; a task the
    // cron's poll settled first may still have a copy on its way): reported, as the rows above are what counts.
    const attempts = await simulator().callbacks(marker);
    const deliveredCopies = new Set(attempts.filter((attempt) => attempt.status === 200).map((attempt) => `${attempt.taskId}/${attempt.copy}`));
    console.log(
      `[image] rolling restart: ${TASKS} tasks × 3 callbacks (${deliveredCopies.size} copies answered 200, ${attempts.length} attempts), ` +
        `${retries} submit retries, the cron run ${cronRuns} times; ${restarts.join("; ")}; ` +
        `all SUCCESS with one capture each ${((Date.now() - began) / 1000).toFixed(1)} s after it began`,
    );
    expect((await fetch(`${proxyUrl}/api/ready`)).status).toBe(200);
  });
});
