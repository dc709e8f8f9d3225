// The polling fallback and the cron: outcomes arrive when callbacks do not,
// and many readers cost one gateway call per task per interval.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { readGeneration, submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

// The poll interval is far longer than any test: a task is stale only when a
// test makes it so (makeStale), never because a busy machine was slow, so
// the count of gateway calls measures the lease and nothing else.
const app = await startApp({ env: { POLL_STALE_MS: "600000", PENDING_OVERDUE_MS: "60000" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");

afterAll(() => app.close());

const statusCalls = async (marker: string) => (await app.simulator.requests(marker)).filter((r) => r.method === "GET").length;
const makeStale = (ids: string[]) => prisma.generation.updateMany({ where: { id: { in: ids } }, data: { lastHeardAt: new Date(0) } });

async function quietTasks(label: string, count: number, scenario: Record<string, unknown> = {}) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" }, ...scenario });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await submitPrompt(app, `tide pool ${i} ${marker}`)).body.id as string);
  return { marker, ids };
}

describe("polling fallback", () => {
  test("with callbacks dropped, the outcome arrives by polling when the gallery is read", async () => {
    const marker = uniqueMarker("dropped");
    await app.simulator.scenario({ match: marker, pendingMs: 200, callback: { mode: "drop" } });
    const { body } = await submitPrompt(app, `dropped ${marker}`);
    await waitFor(async () => (await app.simulator.tasks(marker)).every((t) => t.state === "SUCCESS"), 10_000);
    await makeStale([body.id as string]);
    const done = await waitFor(async () => {
      const response = await app.fetch("/api/generations?limit=100");
      const page = (await response.json()) as { items: { id: string; state: string; creditsConsumed: number | null }[] };
      const item = page.items.find((g) => g.id === body.id);
      return item?.state === "SUCCESS" ? item : null;
    }, 20_000);
    expect(done.creditsConsumed).toBeCloseTo(0.2816, 4);
    const deliveries = await prisma.delivery.findMany({ where: { generationId: done.id } });
    expect(deliveries.map((d) => `${d.source}:${d.outcome}`)).toContain("POLL:APPLIED");
    expect(deliveries.some((d) => d.source === "CALLBACK")).toBe(false);
    expect(await app.simulator.callbacks(marker)).toEqual([]);
  });

  test("a live tab's read (refresh=background) answers without waiting for the gateway, and the refresh still lands", async () => {
    const marker = uniqueMarker("background");
    // The gateway answers each call 800 ms late: inside the read's 1.5 s budget, so a waiting read would show SUCCESS.
    await app.simulator.scenario({ match: marker, pendingMs: 100, latencyMs: 800, callback: { mode: "drop" } });
    const { body } = await submitPrompt(app, `background ${marker}`);
    const id = body.id as string;
    await waitFor(async () => (await app.simulator.tasks(marker)).every((t) => t.state === "SUCCESS"), 10_000);
    await makeStale([id]);

    const response = await app.fetch("/api/generations?limit=100&refresh=background");
    const page = (await response.json()) as { items: { id: string; state: string }[] };
    expect(page.items.find((g) => g.id === id)?.state).toBe("PENDING");
    // No further read: the refresh the read started applies the outcome by itself.
    await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS", 10_000);
    const deliveries = await prisma.delivery.findMany({ where: { generationId: id } });
    expect(deliveries.map((d) => `${d.source}:${d.outcome}`)).toEqual(["POLL:APPLIED"]);
  });

  test("50 concurrent readers cause one gateway call per stale task", async () => {
    const { marker, ids } = await quietTasks("lease", 5);
    await makeStale(ids);
    const responses = await Promise.all(Array.from({ length: 50 }, () => app.fetch("/api/generations?limit=100")));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(await statusCalls(marker)).toBe(5);
    // Within the interval, more readers cost nothing more.
    await Promise.all(Array.from({ length: 50 }, () => app.fetch("/api/generations?limit=100")));
    expect(await statusCalls(marker)).toBe(5);
    const polls = await prisma.delivery.findMany({ where: { generationId: { in: ids } } });
    expect(polls.map((d) => `${d.source}:${d.outcome}`)).toEqual(Array(5).fill("POLL:STILL_PENDING"));
  });

  test("a gateway error backs the task off instead of retrying at once", async () => {
    const { marker, ids } = await quietTasks("error", 1, { statusStatus: 500 });
    await makeStale(ids);
    await readGeneration(app, ids[0]!);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: ids[0] } });
    expect(row.pollFailures).toBe(1);
    expect(row.pollLeaseUntil!.getTime() - Date.now()).toBeGreaterThan(5000);
    await makeStale(ids);
    await readGeneration(app, ids[0]!);
    expect(await statusCalls(marker)).toBe(1);
    const [delivery] = await prisma.delivery.findMany({ where: { generationId: ids[0] } });
    expect(delivery).toMatchObject({ source: "POLL", outcome: "ERROR" });
  });

  test("a 429 is honoured: the next poll waits for Retry-After", async () => {
    const { ids } = await quietTasks("throttled", 1, { statusStatus: 429, retryAfterSeconds: 30 });
    await makeStale(ids);
    await readGeneration(app, ids[0]!);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: ids[0] } });
    expect(row.pollLeaseUntil!.getTime() - Date.now()).toBeGreaterThan(25_000);
  });

  test("a task pending far longer than usual is flagged overdue, not failed", async () => {
    const { ids } = await quietTasks("overdue", 1);
    await prisma.generation.update({ where: { id: ids[0] }, data: { createdAt: new Date(Date.now() - 120_000) } });
    const generation = await readGeneration(app, ids[0]!);
    expect(generation).toMatchObject({ state: "PENDING", overdue: true });
  });
});

describe("GET /api/cron/reconcile", () => {
  test.each([
    ["no Authorization header", undefined],
    ["a wrong secret", "Bearer wrong"],
    ["the secret without Bearer", env.CRON_SECRET],
  ])("refuses %s with 401 and polls nothing", async (_name, authorization) => {
    const { marker, ids } = await quietTasks("cron-denied", 1);
    await makeStale(ids);
    const response = await app.fetch("/api/cron/reconcile", { headers: authorization ? { Authorization: authorization } : {} });
    expect(response.status).toBe(401);
    expect(await statusCalls(marker)).toBe(0);
  });

  test("completes every stale task and fails abandoned submissions", async () => {
    const { marker, ids } = await quietTasks("cron", 3, { pendingMs: 100 });
    await waitFor(async () => (await app.simulator.tasks(marker)).every((t) => t.state === "SUCCESS"), 10_000);
    await makeStale(ids);
    const abandoned = await prisma.generation.create({
      data: { ownerId: "someone", model: "alpha-2.5-text-to-video-480p", prompt: "interrupted", createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    const response = await app.fetch("/api/cron/reconcile", { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ abandoned: 1 });
    const rows = await prisma.generation.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => r.state)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"]);
    expect(await statusCalls(marker)).toBe(3);
    expect(await prisma.generation.findUniqueOrThrow({ where: { id: abandoned.id } })).toMatchObject({
      state: "SUBMIT_FAILED",
      creditsConsumed: 0,
      errorCode: "submit_interrupted",
    });
  });
});
