// The gateway slow enough to time out: at submit (the task may still have
// started: it is not sent twice, and its callback claims it) and while polling
// (readers are not held, the task backs off, and completes once it answers).
import { afterAll, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";
import { startFaultProxy } from "./support/fault-proxy";
import { expectNothingLost } from "./support/invariants";

/** While set, the gateway's status answers are held until it settles. */
let heldPolls: Promise<void> | undefined;
let slowSubmits = 0;
// The delay is on the way to the gateway: a slow submit still starts its task,
// after the app has stopped waiting; status calls stay quick, so the callback
// that adopts the task can confirm it (receive-callback.ts).
const proxy = await startFaultProxy(({ method }) =>
  method === "GET" && heldPolls ? { hold: heldPolls } : method === "POST" && slowSubmits > 0 ? { delayMs: slowSubmits } : {},
);
const app = await startApp({ env: { GATEWAY_BASE_URL: proxy.url, GATEWAY_TIMEOUT_MS: "1000" } });
proxy.setTarget(app.simulator.baseUrl);
const { prisma } = await import("@/lib/db");
const { refreshStaleGenerations } = await import("@/lib/generations/refresh");

afterAll(async () => {
  await app.close();
  await proxy.close();
});

test.each([1, 2, 3])("round %i: submit times out, the gateway starts the task anyway: sent once, adopted by its callback, charged once", async () => {
  const marker = uniqueMarker("submit-timeout");
  await app.simulator.scenario({ match: marker, pendingMs: 200 });
  slowSubmits = 1_500;
  const { status, body } = await submitPrompt(app, `glacier ${marker}`).finally(() => (slowSubmits = 0));
  expect(status).toBe(503);
  const id = (body.generation as { id: string }).id;
  expect(await prisma.generation.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: "SUBMIT_FAILED", errorCode: "submit_timeout", creditsConsumed: 0 });
  await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS", 10_000);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids: [id] });
  expect((await app.simulator.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(1);
});

test("polls time out: readers answer within their budget, the tasks back off, then complete once", async () => {
  const marker = uniqueMarker("poll-timeout");
  await app.simulator.scenario({ match: marker, pendingMs: 100, callback: { mode: "drop" } });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await submitPrompt(app, `tundra ${i} ${marker}`)).body.id as string);
  await prisma.generation.updateMany({ where: { id: { in: ids } }, data: { lastHeardAt: new Date(0) } });
  let release = () => {};
  heldPolls = new Promise<void>((resolve) => (release = resolve));
  try {
    const response = await app.fetch(`/api/generations?limit=100`);
    expect(response.status).toBe(200);
    // The page was served while the gateway still held every poll it made: readers never wait for the gateway.
    const polls = proxy.log.filter((r) => r.method === "GET" && r.decision.hold);
    expect(polls).toHaveLength(3);
    expect(polls.map((r) => r.status)).toEqual([undefined, undefined, undefined]);
    await waitFor(async () => (await prisma.delivery.count({ where: { generationId: { in: ids }, outcome: "ERROR" } })) === 3, 5_000);
    const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, include: { deliveries: true } });
    for (const row of rows) {
      expect(row).toMatchObject({ state: "PENDING", pollFailures: 1 });
      expect(row.deliveries[0]!.detail).toMatch(/^timeout/);
    }
  } finally {
    heldPolls = undefined;
    release();
  }
  await prisma.generation.updateMany({ where: { id: { in: ids } }, data: { lastHeardAt: new Date(0), pollLeaseUntil: null } });
  expect(await refreshStaleGenerations({ ids })).toBe(3);
  await expectNothingLost({ prisma, simulator: app.simulator, marker, ids });
});
