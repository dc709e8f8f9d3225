// The gateway simulator killed (SIGKILL) mid-task and started again on the
// same port. The simulator keeps tasks in memory, so the restarted one has
// forgotten them: the faithful expectation is the user's — nothing charged
// for a task the gateway lost, nothing finished twice, submissions in flight
// failed honestly, and the app back to normal once the gateway is.
import { afterAll, beforeEach, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { startSimulator } from "../support/global-setup";
import { readGeneration, submitPrompt } from "../support/generations";
import { SimulatorControl, uniqueMarker } from "../support/simulator-control";
import { freePort } from "./support/app-process";

const port = await freePort();
const simulatorEnv = { SIMULATOR_PORT: String(port), SIMULATOR_PENDING_MS: "300", SIMULATOR_PENDING_JITTER_MS: "0", SIMULATOR_CALLBACK_BACKOFF_MS: "100", SIMULATOR_LOG: "quiet" };
let gateway = await startSimulator(simulatorEnv);
const control = new SimulatorControl(gateway.url);
const app = await startApp({ env: { GATEWAY_BASE_URL: gateway.url, PENDING_OVERDUE_MS: "60000" } });
const { prisma } = await import("@/lib/db");
const { refreshStaleGenerations } = await import("@/lib/generations/refresh");
const { env } = await import("@/lib/env");

afterAll(async () => {
  gateway.child.kill("SIGKILL");
  await app.close();
});

async function restartGateway() {
  const exited = new Promise((resolve) => gateway.child.once("exit", resolve));
  gateway.child.kill("SIGKILL");
  await exited;
  gateway = await startSimulator(simulatorEnv);
}
const startCredits = 100;
beforeEach(() => control.reset(startCredits));
/** What a reader or the cron does once a task has gone unheard: poll it (lease cleared so each call polls). */
async function pollNow(ids: string[]) {
  await prisma.generation.updateMany({ where: { id: { in: ids } }, data: { lastHeardAt: new Date(0), pollLeaseUntil: null } });
  return refreshStaleGenerations({ ids });
}

test.each([1, 2])("round %i: tasks pending when the gateway dies are never charged, never finished, and polled with backoff", async () => {
  const marker = uniqueMarker("forgotten");
  await control.scenario({ match: marker, pendingMs: 600_000 });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await submitPrompt(app, `orchard ${i} ${marker}`)).body.id as string);
  await restartGateway();
  expect(await control.tasks(marker)).toEqual([]);

  const polledAt = Date.now();
  expect(await pollNow(ids)).toBe(3);
  const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, include: { deliveries: true } });
  for (const row of rows) {
    expect(row).toMatchObject({ state: "PENDING", creditsConsumed: null, pollFailures: 1 });
    expect(row.deliveries.map((d) => `${d.source}:${d.outcome}:${d.detail?.split(":")[0]}`)).toEqual(["POLL:ERROR:not_found"]);
    // Backed off, not hammered: the next poll waits at least twice the stale interval.
    expect(row.pollLeaseUntil!.getTime()).toBeGreaterThanOrEqual(polledAt + 2 * env.POLL_STALE_MS);
  }
  // A reader inside the backoff costs the gateway nothing.
  await readGeneration(app, ids[0]!);
  expect(await prisma.delivery.count({ where: { generationId: { in: ids } } })).toBe(3);
  // Nothing was charged by the gateway that lost them, and the user is told it is taking unusually long.
  expect(await control.credits()).toBe(startCredits);
  await prisma.generation.updateMany({ where: { id: { in: ids } }, data: { createdAt: new Date(Date.now() - 120_000) } });
  expect(await readGeneration(app, ids[0]!)).toMatchObject({ state: "PENDING", overdue: true });
});

// A task the gateway has forgotten (docs/RELIABILITY.md, gap 2) is never
// failed on a guess: the 404s flag it, after TASK_LOST_AFTER_MS it shows as
// lost, and it stays open to a real report. Nothing is charged meanwhile.
test("a task the gateway answers 404 for, again and again, is flagged and then lost, never failed", async () => {
  const marker = uniqueMarker("404");
  await control.scenario({ match: marker, pendingMs: 600_000 });
  const { body } = await submitPrompt(app, `quarry ${marker}`);
  const id = body.id as string;
  await restartGateway();
  await prisma.generation.update({ where: { id }, data: { createdAt: new Date(Date.now() - 11 * 60_000) } });
  for (let i = 0; i < 4; i++) await pollNow([id]);
  const flagged = await prisma.generation.findUniqueOrThrow({ where: { id } });
  expect(flagged).toMatchObject({ state: "PENDING", creditsConsumed: null, errorCode: null, pollNotFound: 4 });
  expect(await readGeneration(app, id)).toMatchObject({ state: "PENDING", notFoundSince: flagged.notFoundSince!.toISOString(), lost: false });

  await prisma.generation.update({ where: { id }, data: { notFoundSince: new Date(Date.now() - 7 * 3_600_000) } });
  await pollNow([id]);
  expect(await readGeneration(app, id)).toMatchObject({ state: "PENDING", creditsConsumed: null, lost: true });
  expect(await control.credits()).toBe(startCredits);
});

test("a submit in flight when the gateway dies fails honestly (0 credits, sent once); after the restart submits work again", async () => {
  const marker = uniqueMarker("inflight");
  await control.scenario({ match: marker, latencyMs: 1_000 });
  const inFlight = submitPrompt(app, `kiln ${marker}`);
  // The row is written just before the gateway's call, which the simulator then holds for a second: the gateway dies under it.
  await waitFor(() => prisma.generation.findFirst({ where: { prompt: { contains: marker }, state: "SUBMITTING" } }), 60_000, "the submission's row, before its gateway call");
  await restartGateway();
  const failed = await inFlight;
  expect(failed.status).toBe(503);
  expect(await readGeneration(app, (failed.body.generation as { id: string }).id)).toMatchObject({
    state: "SUBMIT_FAILED",
    creditsConsumed: 0,
    taskId: null,
  });
  expect(await control.tasks(marker)).toEqual([]);

  const again = await submitPrompt(app, `kiln again ${marker}`);
  expect(again.status).toBe(201);
  const done = await waitFor(async () => {
    const generation = await readGeneration(app, again.body.id as string);
    return generation.state === "SUCCESS" && generation;
  });
  const [task] = await control.tasks(marker);
  expect(done.creditsConsumed).toBe(task!.creditsConsumed);
  expect(await control.credits()).toBeCloseTo(startCredits - task!.creditsConsumed, 6);
});

test("outcomes learned before the gateway died stay as they were", async () => {
  const marker = uniqueMarker("settled");
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) ids.push((await submitPrompt(app, `meadow ${i} ${marker}`)).body.id as string);
  const before = await waitFor(async () => {
    const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    return rows.every((r) => r.state === "SUCCESS") && rows;
  });
  // The delivery is recorded just after the transition it applied: wait for both.
  const deliveries = await waitFor(async () => {
    const applied = await prisma.delivery.count({ where: { generationId: { in: ids }, outcome: "APPLIED" } });
    return applied === ids.length && prisma.delivery.count({ where: { generationId: { in: ids } } });
  });
  await restartGateway();
  expect(await pollNow(ids)).toBe(0);
  for (const id of ids) await readGeneration(app, id);
  const outcome = (r: (typeof before)[number]) => [r.state, r.taskId, r.creditsConsumed, r.resultUrls, r.completedAt];
  const after = await prisma.generation.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
  expect(after.map(outcome)).toEqual(before.map(outcome));
  expect(await prisma.delivery.count({ where: { generationId: { in: ids } } })).toBe(deliveries);
});
