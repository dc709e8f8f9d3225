// A callback storm across two app instances on one PostgreSQL while the
// database restarts, or while an instance is killed: afterwards every task is
// SUCCESS, charged once, and its delivery log says when and how it was applied
// (exactly one APPLIED delivery), which support reads when a user says "I paid
// and got nothing". A transition stored without its delivery row shows here as
// a SUCCESS whose log holds only DUPLICATE entries: its first callback failed
// after the transition, and the retry found the row already terminal.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { adminQuery, limitRoleLockWait, startLocalPostgres, type LocalPostgres } from "../../scripts/local-postgres";
import { migrateDatabase } from "../../lib/database/migrations/migrate";
import { callbackTokenFor } from "@/lib/generations/callback-token";
import { startSimulator } from "../support/global-setup";
import { SimulatorControl, uniqueMarker } from "../support/simulator-control";
import { waitFor } from "../support/app";
import { testEngine } from "../support/test-database";
import { startBalancer } from "./support/balancer";
import { freePort, startAppProcess, type AppProcess } from "./support/app-process";
import { expectNothingLost } from "./support/invariants";

type Prisma = typeof import("@/lib/db").prisma;

const TASKS = 120;
/** Each callback arrives this many times, as an at-least-once gateway sends it. */
const COPIES = 3;
const CONCURRENCY = 32;

describe.skipIf(testEngine() !== "postgres")("the delivery log across database restarts and killed instances", () => {
  let postgres: LocalPostgres;
  let dataDir: string;
  let prisma: Prisma;
  let webhookSecret: string;
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  let control: SimulatorControl;
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  let appEnv: Record<string, string>;
  const ports: number[] = [];
  const instances: AppProcess[] = [];

  beforeAll(async () => {
    // A server of this file's own: the harness's is shared with every other file, and this one goes down.
    dataDir = path.join(fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), "restarts-")), "postgres");
    postgres = await startLocalPostgres({ dataDir, port: await freePort(), throwaway: true });
    await adminQuery(postgres.url("postgres"), `CREATE DATABASE "restarts"`);
    await limitRoleLockWait(postgres.url("postgres"));
    await migrateDatabase({ databaseUrl: postgres.url("restarts"), quiet: true });

    simulator = await startSimulator({ SIMULATOR_PENDING_MS: "200", SIMULATOR_PENDING_JITTER_MS: "0", SIMULATOR_START_CREDITS: "100000", SIMULATOR_LOG: "quiet" });
    control = new SimulatorControl(simulator.url);
    ports.push(await freePort(), await freePort());
    balancer = await startBalancer(ports.map((port) => `http://127.0.0.1:${port}`));
    appEnv = {
      DATABASE_URL: postgres.url("restarts"),
      GATEWAY_BASE_URL: simulator.url,
      PUBLIC_BASE_URL: balancer.url,
      // No poll or copy job competes with the callbacks: what is measured is the callback path alone.
      POLL_STALE_MS: "600000",
      MEDIA_STORAGE: "none",
      SUBMIT_RATE_LIMIT: "0",
    };
    Object.assign(process.env, appEnv);
    for (const port of ports) instances[ports.indexOf(port)] = await startAppProcess({ port, env: appEnv });
    prisma = (await import("@/lib/db")).prisma;
    webhookSecret = (await import("@/lib/env")).env.WEBHOOK_SECRET;
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) await instance?.kill();
    simulator?.child.kill("SIGTERM");
    await balancer?.close();
    await postgres?.stop();
  });

  /** TASKS generations submitted through the balancer; the gateway runs each to SUCCESS and sends no callback (the test is the gateway's callback sender). */
  async function submitTasks(marker: string) {
    await control.scenario({ match: marker, callback: { mode: "drop" } });
    // One visitor, so that its Idempotency-Key makes a submit sent again (a 502 from the balancer) one generation.
    const cookie = (await fetch(`${balancer.url}/api/generations?limit=1`)).headers.get("set-cookie")!.split(";")[0]!;
    const submit = async (i: number) => {
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(`${balancer.url}/api/generations`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Cookie: cookie, "Idempotency-Key": `storm-${marker.replace(/\W/g, "")}-${i}` },
          body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `storm ${i} ${marker}`, duration: 2 } }),
        });
        if (response.status === 201 || attempt === 20) {
          expect(response.status).toBe(201);
          return ((await response.json()) as { id: string }).id;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const ids: string[] = [];
    for (let batch = 0; batch < TASKS / 30; batch++) ids.push(...(await Promise.all(Array.from({ length: 30 }, (_, i) => submit(batch * 30 + i)))));
    await waitFor(async () => (await control.tasks(marker)).filter((t) => t.state === "SUCCESS").length === TASKS, 30_000);
    return ids;
  }

  /**
   * Sends each task's SUCCESS callback COPIES times through the balancer, as a
   * gateway does: a non-2xx or a broken connection is sent again (after 100 ms)
   * until it is answered 2xx. `during` runs once a quarter of them were answered.
   */
  async function callbackStorm(marker: string, ids: string[], during: () => Promise<void>) {
    const tasks = new Map((await control.tasks(marker)).map((t) => [t.taskId, t]));
    const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, select: { id: true, taskId: true } });
    const deliveries = rows.flatMap((row) => {
      const task = tasks.get(row.taskId!)!;
      const body = JSON.stringify({ taskId: task.taskId, state: "SUCCESS", resultUrls: task.resultUrls, creditsConsumed: task.creditsConsumed });
      const url = `${balancer.url}/api/webhooks/gateway?token=${encodeURIComponent(callbackTokenFor(row.id, webhookSecret))}`;
      return Array.from({ length: COPIES }, () => ({ url, body }));
    });
    let answered = 0;
    let failedAttempts = 0;
    let fault: Promise<void> | undefined;
    const send = async ({ url, body }: { url: string; body: string }) => {
      for (let attempt = 0; attempt < 300; attempt++) {
        // Bounded, as a gateway's sender is: an answer that never comes is a failed attempt, sent again.
        const status = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body, signal: AbortSignal.timeout(30_000) }).then(
          (r) => r.status,
          () => 0,
        );
        if (status >= 200 && status < 300) {
          if (++answered === Math.floor(deliveries.length / 4)) fault = during();
          return;
        }
        failedAttempts++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error("a callback was never answered 2xx");
    };
    const queue = [...deliveries];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await send(next);
      }),
    );
    await fault;
    return { answered, failedAttempts };
  }

  async function expectEachAppliedOnce(marker: string, ids: string[]) {
    // Charged once: the app's credits per task and in all are the gateway's.
    await expectNothingLost({ prisma, simulator: control, marker, ids });
    const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, include: { deliveries: true } });
    const withoutOneApplied = rows
      .filter((row) => row.state === "SUCCESS" && row.deliveries.filter((d) => d.outcome === "APPLIED").length !== 1)
      .map((row) => `${row.id}: ${row.deliveries.map((d) => d.outcome).join(", ")}`);
    expect(withoutOneApplied).toEqual([]);
    expect(rows.filter((row) => row.state === "SUCCESS")).toHaveLength(TASKS);
  }

  test(`PostgreSQL restarted twice during ${TASKS * COPIES} callbacks: every SUCCESS has exactly one APPLIED delivery and was charged once`, async () => {
    const marker = uniqueMarker("pg-restart");
    const ids = await submitTasks(marker);
    const { failedAttempts } = await callbackStorm(marker, ids, async () => {
      for (let restart = 0; restart < 2; restart++) {
        // A fast shutdown (pg_ctl -m fast): sessions are cut mid-statement, then the server comes back on the same data and port.
        await postgres.stop();
        postgres = await startLocalPostgres({ dataDir, port: postgres.port });
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    });
    // The restarts did cut callbacks off (each was then sent again).
    expect(failedAttempts).toBeGreaterThan(0);
    await expectEachAppliedOnce(marker, ids);
  }, 180_000);

  test(`an instance killed twice during ${TASKS * COPIES} callbacks: every SUCCESS has exactly one APPLIED delivery and was charged once`, async () => {
    const marker = uniqueMarker("kill");
    const ids = await submitTasks(marker);
    const { failedAttempts } = await callbackStorm(marker, ids, async () => {
      for (const victim of [0, 1]) {
        await instances[victim]!.kill("SIGKILL");
        instances[victim] = await startAppProcess({ port: ports[victim]!, env: appEnv });
      }
    });
    expect(failedAttempts).toBeGreaterThan(0);
    await expectEachAppliedOnce(marker, ids);
  }, 180_000);
});
