// The spending cap per owner, through the real routes, database and simulator:
// concurrent submits near the cap never overshoot it, refusals never reach
// the gateway, owners' caps are independent, and a failure gives its estimate back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { clip } from "../support/media-fixtures";
import { uniqueMarker } from "../support/simulator-control";
import { uploadId } from "../support/uploads";

// 2-second 480p videos: 0.2816 credits each, so seven fit under 2 credits and the eighth does not.
const CAP = 2;
const ESTIMATE = 0.2816;
// Every visitor here submits from 127.0.0.1: the address cap (its own file, spend-caps-anonymous) is off.
const app = await startApp({
  env: { SPEND_LIMIT_CREDITS: String(CAP), SPEND_LIMIT_ADDRESS_CREDITS: "0", SPEND_LIMIT_WINDOW: "day", SUBMIT_RATE_LIMIT: "0", MEDIA_LOCAL_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "framehook-spend-")) },
});
const { prisma } = await import("@/lib/db");

afterAll(() => app.close());

type Visitor = ReturnType<typeof app.visitor>;
const submit = (visitor: Visitor, prompt: string, model = "alpha-2.5-text-to-video-480p") =>
  visitor("/api/generations", { method: "POST", json: { model, input: { prompt, duration: 2 } } });
const spendOf = async (visitor: Visitor) =>
  ((await (await visitor("/api/spend")).json()) as { spend: { used: number; limit: number; resetsAt: string } | null }).spend;
const gatewaySubmits = async (marker: string) => (await app.simulator.requests(marker)).filter((r) => r.method === "POST").length;

describe("spending cap", () => {
  test("the insert itself is atomic: 20 concurrent inserts in one process never sum past the cap", async () => {
    // Straight at the service, without HTTP spreading the calls out: all 20 are in flight at once.
    // First in the file on purpose: it is also this process's first transaction (see connected()).
    const { insertGeneration } = await import("@/lib/generations/store");
    const ownerId = `direct-${uniqueMarker("owner")}`;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        insertGeneration({ ownerId, costEstimate: ESTIMATE, model: "alpha-2.5-text-to-video-480p", prompt: `direct ${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
    const reasons = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as { code?: string }).code] : []));
    expect(reasons).toEqual(Array(13).fill("spend_limit"));
    const stored = await prisma.generation.aggregate({ _sum: { costEstimate: true }, _count: true, where: { ownerId } });
    expect(stored._count).toBe(7);
    expect(stored._sum.costEstimate!).toBeLessThanOrEqual(CAP);
  });

  test("20 concurrent submits from one owner near the cap: 7 accepted, 13 refused with 429 before the gateway", async () => {
    const marker = uniqueMarker("cap");
    // Kept in flight: their estimates count until they finish.
    await app.simulator.scenario({ match: marker, pendingMs: 60_000, callback: { mode: "drop" } });
    const visitor = app.visitor();
    const ownerId = await visitor.ownerId();

    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(visitor, `lantern ${i} ${marker}`)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.filter((s) => s === 429)).toHaveLength(13);

    const refusal = responses.find((r) => r.status === 429)!;
    expect(Number(refusal.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refusal.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("spend_limit");
    // In the visitor's own credits: 7 × 0.2816 gateway credits = 29.57 credits (rounded up), of a cap of 2 = 30 credits.
    expect(body.error.message).toMatch(/^You've used 30 of 30 credits today; resets at \d{4}-\d\d-\d\d 00:00 UTC\./);

    // Nothing stored for a refusal; what is stored stays within the cap; the gateway saw only the accepted.
    const rows = await prisma.generation.findMany({ where: { ownerId } });
    expect(rows).toHaveLength(7);
    expect(rows.reduce((sum, r) => sum + r.costEstimate, 0)).toBeLessThanOrEqual(CAP);
    expect(rows.every((r) => r.costEstimate === ESTIMATE)).toBe(true);
    expect(await gatewaySubmits(marker)).toBe(7);
    expect(await spendOf(visitor)).toMatchObject({ used: 1.9712, limit: CAP });
  });

  test("another owner's cap is their own", async () => {
    const marker = uniqueMarker("cap-other");
    const full = app.visitor();
    await app.simulator.scenario({ match: marker, pendingMs: 60_000, callback: { mode: "drop" } });
    for (let i = 0; i < 7; i++) expect((await submit(full, `kite ${i} ${marker}`)).status).toBe(201);
    expect((await submit(full, `kite 8 ${marker}`)).status).toBe(429);
    const other = app.visitor();
    expect((await submit(other, `kite other ${marker}`)).status).toBe(201);
    expect(await spendOf(other)).toMatchObject({ used: ESTIMATE });
  });

  test("a pay-per-use model counts at the assumed rate (0.15 credits/s)", async () => {
    const marker = uniqueMarker("cap-ppu");
    await app.simulator.scenario({ match: marker, pendingMs: 60_000, callback: { mode: "drop" } });
    const visitor = app.visitor();
    const reference = await uploadId(visitor, clip({ seconds: 1 }), { model: "gamma/reference-to-video", field: "reference_video_urls" });
    const response = await visitor("/api/generations", {
      method: "POST",
      json: { model: "gamma/reference-to-video", input: { prompt: `echo ${marker}`, reference_video_urls: [reference], duration: 10 } },
    });
    expect(response.status).toBe(201);
    expect(await spendOf(visitor)).toMatchObject({ used: 1.5 });
  });

  test("a failed task gives its estimate back; a success counts what it was charged", async () => {
    const marker = uniqueMarker("cap-settle");
    const visitor = app.visitor();
    await app.simulator.scenario({ match: `${marker}-fail`, outcome: "failure", pendingMs: 100 });
    await app.simulator.scenario({ match: `${marker}-ok`, pendingMs: 100 });
    const failed = (await (await submit(visitor, `ash ${marker}-fail`)).json()) as { id: string };
    const ok = (await (await submit(visitor, `oak ${marker}-ok`)).json()) as { id: string };
    await waitFor(async () => {
      const rows = await prisma.generation.findMany({ where: { id: { in: [failed.id, ok.id] } } });
      return rows.every((r) => r.state === "FAILURE" || r.state === "SUCCESS");
    });
    const charged = (await prisma.generation.findUniqueOrThrow({ where: { id: ok.id } })).creditsConsumed;
    expect(charged).toBe(ESTIMATE);
    expect(await spendOf(visitor)).toMatchObject({ used: ESTIMATE });
  });

  test("the spend shown while tasks finish counts each once: the figure holds steady through their completions", async () => {
    // A success is charged exactly its estimate here, so the true figure never moves while these finish.
    const marker = uniqueMarker("cap-steady");
    const visitor = app.visitor();
    await app.simulator.scenario({ match: marker, pendingMs: 600_000 });
    const prompts = Array.from({ length: 7 }, (_, i) => `ember ${i} ${marker}`);
    const ids = await Promise.all(prompts.map(async (prompt) => ((await (await submit(visitor, prompt)).json()) as { id: string }).id));
    const reads: number[] = [];
    let done = false;
    const readers = Array.from({ length: 3 }, async () => {
      while (!done) reads.push((await spendOf(visitor))!.used);
    });
    // One at a time, each finishing between reads: a few reads land while its outcome is written.
    for (const [i, prompt] of prompts.entries()) {
      const before = reads.length;
      await app.simulator.settle(prompt);
      await waitFor(async () => reads.length >= before + 3 && (await prisma.generation.findUniqueOrThrow({ where: { id: ids[i] } })).state === "SUCCESS");
    }
    done = true;
    await Promise.all(readers);
    expect(new Set(reads)).toEqual(new Set([Math.round(7 * ESTIMATE * 10_000) / 10_000]));
  });

  test("a refusal says nothing was sent to the gateway, and nothing was", async () => {
    // The JSON API and the action share submitGeneration; the message is what the form shows.
    const visitor = app.visitor();
    const marker = uniqueMarker("cap-msg");
    await app.simulator.scenario({ match: marker, pendingMs: 60_000, callback: { mode: "drop" } });
    for (let i = 0; i < 7; i++) await submit(visitor, `reed ${i} ${marker}`);
    const refused = await submit(visitor, `reed 8 ${marker}`);
    const { error } = (await refused.json()) as { error: { message: string } };
    expect(error.message).toContain("Nothing was sent to the gateway");
    expect(await gatewaySubmits(marker)).toBe(7);
  });
});

describe("a submission the gateway did not answer", () => {
  // The simulator takes longer than GATEWAY_TIMEOUT_MS (2 s here) to answer, then starts the task all the same.
  const LATE_MS = 3_000;

  test("counts at its estimate while the gateway may be running it: the cap holds one fewer", async () => {
    const marker = uniqueMarker("cap-timeout");
    const visitor = app.visitor();
    await app.simulator.scenario({ match: `${marker}-late`, submitLatencyMs: LATE_MS, pendingMs: 600_000, callback: { mode: "drop" } });
    const late = await submit(visitor, `fjord ${marker}-late`);
    expect(late.status).toBe(503);
    const ownerId = await visitor.ownerId();
    expect(await prisma.generation.findFirstOrThrow({ where: { ownerId } })).toMatchObject({ state: "SUBMIT_FAILED", errorCode: "submit_timeout", creditsConsumed: 0 });
    // The gateway did start it, unannounced (no callback will come).
    await waitFor(async () => (await app.simulator.tasks(`${marker}-late`)).length === 1);
    expect(await spendOf(visitor)).toMatchObject({ used: ESTIMATE });

    await app.simulator.scenario({ match: `${marker}-more`, pendingMs: 600_000, callback: { mode: "drop" } });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await submit(visitor, `fjord ${i} ${marker}-more`)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429]);
    expect(await spendOf(visitor)).toMatchObject({ used: Math.round(7 * ESTIMATE * 10_000) / 10_000 });
    expect(await gatewaySubmits(`${marker}-more`)).toBe(6);
  });

  test("once its callback claims it, it counts once, at what it was charged", async () => {
    const marker = uniqueMarker("cap-adopted");
    const visitor = app.visitor();
    await app.simulator.scenario({ match: marker, submitLatencyMs: LATE_MS, pendingMs: 300 });
    const late = await submit(visitor, `delta ${marker}`);
    expect(late.status).toBe(503);
    const ownerId = await visitor.ownerId();
    await waitFor(async () => (await prisma.generation.findFirstOrThrow({ where: { ownerId } })).state === "SUCCESS");
    expect(await spendOf(visitor)).toMatchObject({ used: ESTIMATE });
  });

  test("a refusal the gateway answered counts nothing: no task can exist", async () => {
    const marker = uniqueMarker("cap-refused");
    const visitor = app.visitor();
    await app.simulator.scenario({ match: marker, submitStatus: 402 });
    // The gateway's own 402 (the operator's balance there), answered as the service unavailable.
    expect((await submit(visitor, `moor ${marker}`)).status).toBe(503);
    expect(await prisma.generation.findFirstOrThrow({ where: { ownerId: await visitor.ownerId() } })).toMatchObject({ state: "SUBMIT_FAILED", errorCode: "submit_insufficient_credits" });
    expect(await spendOf(visitor)).toMatchObject({ used: 0 });
  });
});
