// Copying results into the app's own storage (local backend), against a real
// database and simulator: the copy is complete or absent, retried, never
// doubled, and never follows a link into our own network.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clipPath } from "@/simulator/clips";
import { startApp, waitFor } from "../support/app";
import { readGeneration, submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

// A media folder of this file's own: other files' copies, running in parallel, must not show up in its .partial/.
const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-copy-"));
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "4", MEDIA_RETENTION_DAYS: "30", MEDIA_MAX_BYTES: "3000000" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");
const { runDueMediaJobs } = await import("@/lib/copies/copy-jobs");

// A server on loopback that a redirect must never reach (it counts who does).
let internalHits = 0;
const internal = http.createServer((_req, res) => {
  internalHits++;
  res.writeHead(200, { "Content-Type": "video/mp4" }).end("internal secret");
});
await new Promise<void>((resolve) => internal.listen(0, "127.0.0.1", resolve));
const internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}/latest/meta-data`;

afterAll(async () => {
  internal.close();
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});
beforeAll(() => app.simulator.reset(1000));

type Stored = { status: string; url: string | null; attempts: number; error: string | null; size: number | null };

/** Submits a prompt under its own marker (with `media` options) and waits for SUCCESS. */
async function succeeded(label: string, media?: Parameters<typeof app.simulator.scenario>[0]["media"], extra = {}) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, media, ...extra });
  const { body } = await submitPrompt(app, `tide pool ${marker}`);
  const id = body.id as string;
  await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS");
  return { marker, id };
}

/**
 * Runs due jobs (through `run`: this generation's, unless told otherwise) until the copy settles as done
 * or failed (retries are due after MEDIA_COPY_RETRY_MS·4ⁿ).
 */
async function settledCopy(id: string, run: () => Promise<unknown> = () => runDueMediaJobs({ generationIds: [id] })) {
  return waitFor(async () => {
    await run();
    const rows = await prisma.mediaCopy.findMany({ where: { generationId: id } });
    return rows.length > 0 && rows.every((r) => r.state === "DONE" || r.state === "FAILED") && rows;
  }, 30_000);
}

const storedFiles = (id: string) => {
  const dir = path.join(env.MEDIA_LOCAL_DIR, "generations", id);
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe("a finished video is copied", () => {
  test("stored once, byte for byte, and served with ranges, ETag and its type", async () => {
    const { marker, id } = await succeeded("copy");
    const [row] = await settledCopy(id);
    const generation = (await readGeneration(app, id)) as unknown as { resultUrls: string[]; storedMedia: Stored[] };
    const original = fs.readFileSync(clipPath(generation.resultUrls[0]!.split("/").pop()!)!);
    expect(row).toMatchObject({ state: "DONE", attempts: 1, size: original.length, contentType: "video/mp4", lastError: null });
    expect(generation.storedMedia).toEqual([expect.objectContaining({ status: "done", url: `/api/media/${row!.id}`, size: original.length })]);
    // The copy and its still (tests/integration/media-stills.test.ts).
    expect(storedFiles(id).sort()).toEqual(["0", "0-still"]);

    const whole = await app.fetch(`/api/media/${row!.id}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await whole.arrayBuffer()).equals(original)).toBe(true);
    const etag = whole.headers.get("etag")!;
    expect(etag).toBe(`"${row!.sha256}"`);

    const part = await app.fetch(`/api/media/${row!.id}`, { headers: { Range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${original.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(original.subarray(100, 200))).toBe(true);
    expect((await app.fetch(`/api/media/${row!.id}`, { headers: { Range: `bytes=${original.length}-` } })).status).toBe(416);
    expect((await app.fetch(`/api/media/${row!.id}`, { headers: { "If-None-Match": etag } })).status).toBe(304);

    // The gateway's link expires; the copy still plays.
    await app.simulator.expire(marker);
    expect((await fetch(generation.resultUrls[0]!)).status).toBe(410);
    expect((await app.fetch(`/api/media/${row!.id}`, { headers: { Range: "bytes=0-" } })).status).toBe(206);
    // Downloaded from the gateway exactly once.
    expect((await app.simulator.media(marker)).filter((m) => m.method === "GET" && m.status === 200)).toHaveLength(1);
  });

  test("an unknown or unfinished copy is a 404", async () => {
    expect((await app.fetch("/api/media/nope")).status).toBe(404);
    // The viewer's own generation, with copies that never finished: one not yet run, one that failed for good.
    const generation = await prisma.generation.create({
      data: { ownerId: await app.fetch.ownerId(), model: "alpha-2.5-text-to-video-480p", prompt: "unfinished copies", state: "SUCCESS", taskId: `task_${uniqueMarker("unfinished")}`, resultUrls: JSON.stringify(["https://cdn.example/a.mp4", "https://cdn.example/b.mp4"]), creditsConsumed: 0.28, completedAt: new Date() },
    });
    const later = new Date(Date.now() + 3_600_000);
    const copies = await Promise.all(
      (["PENDING", "FAILED"] as const).map((state, position) =>
        prisma.mediaCopy.create({ data: { generationId: generation.id, position, sourceUrl: `https://cdn.example/${position}.mp4`, storageKey: `unfinished/${generation.id}/${position}`, state, nextRunAt: later } }),
      ),
    );
    for (const copy of copies) expect((await app.fetch(`/api/media/${copy.id}`)).status).toBe(404);
  });

  test("another visitor's copy is a 404, as a missing one is", async () => {
    const { id } = await succeeded("owned");
    const [row] = await settledCopy(id);
    expect((await app.fetch(`/api/media/${row!.id}`)).status).toBe(200);
    const stranger = app.visitor();
    const answer = await stranger(`/api/media/${row!.id}`, { headers: { Range: "bytes=0-99" } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get("content-range")).toBeNull();
  });
});

describe("faults", () => {
  test("a truncated download is retried and never stored as complete", async () => {
    const { marker, id } = await succeeded("truncated", { truncateAfterBytes: 5_000, failTimes: 2 });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "DONE", attempts: 3 });
    const downloads = (await app.simulator.media(marker)).filter((m) => m.method === "GET");
    expect(downloads.map((d) => d.bytes)).toEqual([5_000, 5_000, row!.size]);
    const stored = fs.readFileSync(path.join(env.MEDIA_LOCAL_DIR, row!.storageKey));
    expect(stored.length).toBe(row!.size);
    // No partial file is left behind (an earlier test's copy may still be finishing one for a moment).
    await waitFor(() => fs.readdirSync(path.join(env.MEDIA_LOCAL_DIR, ".partial")).length === 0, 10_000);
  });

  test("a download cut short every time ends FAILED (flagged), with nothing stored", async () => {
    const { id } = await succeeded("always-cut", { truncateAfterBytes: 1_000 });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "FAILED", attempts: env.MEDIA_COPY_MAX_ATTEMPTS, lastError: expect.stringContaining("cut short") });
    expect(storedFiles(id)).toEqual([]);
    const generation = (await readGeneration(app, id)) as unknown as { storedMedia: Stored[] };
    expect(generation.storedMedia[0]).toMatchObject({ status: "failed", url: null });
  });

  test("a redirect to another service on 127.0.0.1 is refused: nothing fetched, nothing stored", async () => {
    const { id } = await succeeded("redirect", { redirectTo: internalUrl });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "FAILED", attempts: 1, lastError: expect.stringContaining("Refused") });
    expect(internalHits).toBe(0);
    expect(storedFiles(id)).toEqual([]);
  });

  test("a redirect within the gateway's own origin is followed", async () => {
    const { id } = await succeeded("self-redirect", { redirectTo: "self" });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "DONE", attempts: 1 });
  });

  test("5xx answers are retried with backoff until the file comes", async () => {
    const { id } = await succeeded("flaky", { status: 503, failTimes: 2 });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "DONE", attempts: 3, lastError: null });
  });

  test("a file over MEDIA_MAX_BYTES is refused at once", async () => {
    const { id } = await succeeded("huge", { sizeBytes: 4_000_000 });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "FAILED", attempts: 1, lastError: expect.stringContaining("limit") });
    expect(storedFiles(id)).toEqual([]);
  });

  test("a link that expired before any copy: FAILED at once, not retried", async () => {
    // The result URL is born expired, so no copy (started at once on SUCCESS) can win a race with it.
    const { id } = await succeeded("expired", undefined, { resultTtlMs: 0 });
    const [row] = await settledCopy(id);
    expect(row).toMatchObject({ state: "FAILED", attempts: 1, lastError: expect.stringContaining("410") });
  });
});

test("10 concurrent SUCCESS callbacks for one task: one job, one download, one stored file", async () => {
  const marker = uniqueMarker("storm");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { body } = await submitPrompt(app, `storm ${marker}`);
  const id = body.id as string;
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  const token = callbackTokenFor(id, env.WEBHOOK_SECRET);
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      app.fetch(`/api/webhooks/gateway?token=${encodeURIComponent(token)}`, { method: "POST", json: task }),
    ),
  );
  expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
  // Readers and the cron nudge the jobs too, concurrently.
  await Promise.all([readGeneration(app, id), runDueMediaJobs(), runDueMediaJobs({ generationIds: [id] })]);
  const rows = await settledCopy(id);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ state: "DONE", attempts: 1 });
  expect((await app.simulator.media(marker)).filter((m) => m.method === "GET")).toHaveLength(1);
  expect(storedFiles(id).sort()).toEqual(["0", "0-still"]);
});

test("a callback naming 200 result URLs: 16 kept and copied, the other 184 counted as dropped", async () => {
  const { MAX_RESULT_URLS } = await import("@/lib/gateway/task");
  const marker = uniqueMarker("many-urls");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { body } = await submitPrompt(app, `a flood of links ${marker}`);
  const id = body.id as string;
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  const real = task!.resultUrls[0]!;
  // The real file first, then 199 more links on the same host (16 KB of body).
  const resultUrls = [real, ...Array.from({ length: 199 }, (_, i) => `${real}?copy=${i}`)];
  const token = callbackTokenFor(id, env.WEBHOOK_SECRET);
  const answer = await app.fetch(`/api/webhooks/gateway?token=${encodeURIComponent(token)}`, { method: "POST", json: { ...task, resultUrls } });
  expect(answer.status).toBe(200);

  const rows = await settledCopy(id);
  expect(rows).toHaveLength(MAX_RESULT_URLS);
  expect(new Set(rows.map((r) => r.sourceUrl))).toEqual(new Set(resultUrls.slice(0, MAX_RESULT_URLS)));
  const generation = (await readGeneration(app, id)) as unknown as { state: string; resultUrls: string[]; resultUrlsDropped: number; storedMedia: Stored[] };
  expect(generation).toMatchObject({ state: "SUCCESS", resultUrls: resultUrls.slice(0, MAX_RESULT_URLS), resultUrlsDropped: 200 - MAX_RESULT_URLS });
  expect(generation.storedMedia).toHaveLength(MAX_RESULT_URLS);
});

test("a crash between the SUCCESS transition and the copy job loses nothing: the cron derives the job", async () => {
  const { reconcile } = await import("@/lib/generations/reconcile");
  const marker = uniqueMarker("crashgap");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { body } = await submitPrompt(app, `lantern ${marker}`);
  const id = body.id as string;
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  // The transition as the single writer makes it, but the process "dies" before its hook runs.
  await prisma.generation.update({
    where: { id },
    data: { state: "SUCCESS", resultUrls: JSON.stringify(task!.resultUrls), creditsConsumed: task!.creditsConsumed, completedAt: new Date() },
  });
  expect(await prisma.mediaCopy.count({ where: { generationId: id } })).toBe(0);
  // The cron, run as its schedule would run it, until this generation's copy is settled: it schedules at most 100
  // generations a run, and may take this file's other SUCCESS rows first.
  expect(await settledCopy(id, reconcile)).toEqual([expect.objectContaining({ state: "DONE", attempts: 1 })]);
});

test("retention: a copy older than MEDIA_RETENTION_DAYS becomes a deletion job, and the file goes", async () => {
  const { reconcile } = await import("@/lib/generations/reconcile");
  const { id } = await succeeded("retention");
  const [row] = await settledCopy(id);
  expect(storedFiles(id).sort()).toEqual(["0", "0-still"]);
  await reconcile();
  expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row!.id } })).toMatchObject({ state: "DONE" });

  await prisma.mediaCopy.update({ where: { id: row!.id }, data: { completedAt: new Date(Date.now() - 31 * 86_400_000) } });
  await reconcile();
  expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row!.id } })).toMatchObject({ state: "DELETED" });
  expect(storedFiles(id)).toEqual([]);
  expect((await app.fetch(`/api/media/${row!.id}`)).status).toBe(404);
  const generation = (await readGeneration(app, id)) as unknown as { storedMedia: Stored[] };
  expect(generation.storedMedia).toEqual([expect.objectContaining({ status: "deleted", url: null })]);
});

test("10 runners racing for one due job (instances, cron, readers): one claims it, one download", async () => {
  const { scheduleMediaCopies } = await import("@/lib/copies/copy-jobs");
  const marker = uniqueMarker("race");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" }, media: { latencyMs: 300 } });
  const { body } = await submitPrompt(app, `race ${marker}`);
  const id = body.id as string;
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  // SUCCESS written without its hook, so the job waits, due, for whoever comes first.
  await prisma.generation.update({ where: { id }, data: { state: "SUCCESS", resultUrls: JSON.stringify(task!.resultUrls), completedAt: new Date() } });
  await scheduleMediaCopies({ generationIds: [id] });
  const claims = await Promise.all(Array.from({ length: 10 }, () => runDueMediaJobs({ generationIds: [id] })));
  expect(claims.reduce((sum, claim) => sum + claim.ran, 0)).toBe(1);
  expect(await prisma.mediaCopy.findMany({ where: { generationId: id } })).toEqual([expect.objectContaining({ state: "DONE", attempts: 1 })]);
  expect((await app.simulator.media(marker)).filter((m) => m.method === "GET")).toHaveLength(1);
});
