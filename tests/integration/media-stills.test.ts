// A still per stored video (local backend), against a real database and
// simulator: made when the copy is stored, served with the copy's owner
// scoping and headers, absent (and said so) when the video cannot be decoded,
// made on first request for copies stored before stills existed, left untried
// (not "none") when the server was too busy to make it, and never left
// behind when retention deletes the copy while its still is being made.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { readGeneration } from "../support/generations";
import { submitAndCopy } from "../support/media-copies";
import type { Scenario } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-stills-"));
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "3", MEDIA_RETENTION_DAYS: "30" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { mediaPool } = await import("@/lib/media/media-pool");
const { backfillStill } = await import("@/lib/copies/stills");
const { getMediaStorage } = await import("@/lib/storage/storage");
const { expireStoredMedia, runDueMediaJobs } = await import("@/lib/copies/copy-jobs");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});
beforeAll(() => app.simulator.reset(1000));

type Stored = { status: string; url: string | null; stillUrl: string | null };

const copied = (label: string, media?: Scenario["media"]) => submitAndCopy(app, { label, prompt: "lighthouse", media });

const storedFiles = (id: string) => {
  const dir = path.join(MEDIA_DIR, "generations", id);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};
const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes.at(-2) === 0xff && bytes.at(-1) === 0xd9;

describe("a stored video gets a still", () => {
  test("stored beside the copy and served as a JPEG with the copy's headers", async () => {
    const { id, row } = await copied("still");
    expect(row).toMatchObject({ state: "DONE", stillKey: `generations/${id}/0-still` });
    expect(storedFiles(id)).toEqual(["0", "0-still"]);
    const generation = (await readGeneration(app, id)) as unknown as { storedMedia: Stored[] };
    expect(generation.storedMedia).toEqual([expect.objectContaining({ status: "done", stillUrl: `/api/media/${row.id}/still` })]);

    const still = await app.fetch(`/api/media/${row.id}/still`);
    expect(still.status).toBe(200);
    expect(still.headers.get("content-type")).toBe("image/jpeg");
    expect(still.headers.get("x-content-type-options")).toBe("nosniff");
    // Its own policy, not replaced by the one every page gets: a sandbox, and no site may frame it.
    expect(still.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
    expect(still.headers.get("x-frame-options")).toBe("DENY");
    expect(still.headers.get("cache-control")).toBe("private, max-age=86400");
    const bytes = Buffer.from(await still.arrayBuffer());
    expect(isJpeg(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(100_000);
    const again = await app.fetch(`/api/media/${row.id}/still`, { headers: { "If-None-Match": still.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  test("another visitor's still is a 404, as a missing one is", async () => {
    const { row } = await copied("still-owned");
    expect((await app.fetch(`/api/media/${row.id}/still`)).status).toBe(200);
    expect((await app.visitor()(`/api/media/${row.id}/still`)).status).toBe(404);
    expect((await app.fetch("/api/media/nope/still")).status).toBe(404);
  });

  test("a result that cannot be decoded is stored all the same, with no still, and says so", async () => {
    const { id, row } = await copied("still-undecodable", { sizeBytes: 40_000 });
    expect(row).toMatchObject({ state: "DONE", size: 40_000, stillKey: null });
    expect(row.stillCheckedAt).not.toBeNull();
    expect(storedFiles(id)).toEqual(["0"]);
    const generation = (await readGeneration(app, id)) as unknown as { storedMedia: Stored[] };
    expect(generation.storedMedia).toEqual([expect.objectContaining({ status: "done", url: `/api/media/${row.id}`, stillUrl: null })]);
    expect((await app.fetch(`/api/media/${row.id}/still`)).status).toBe(404);
  });

  test("a copy stored before stills existed gets its still on the first request", async () => {
    const { id, row } = await copied("still-backfill");
    fs.rmSync(path.join(MEDIA_DIR, "generations", id, "0-still"));
    await prisma.mediaCopy.update({ where: { id: row.id }, data: { stillKey: null, stillCheckedAt: null } });
    const before = (await readGeneration(app, id)) as unknown as { storedMedia: Stored[] };
    expect(before.storedMedia[0]?.stillUrl).toBe(`/api/media/${row.id}/still`);

    const still = await app.fetch(`/api/media/${row.id}/still`);
    expect(still.status).toBe(200);
    expect(isJpeg(Buffer.from(await still.arrayBuffer()))).toBe(true);
    expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ stillKey: `generations/${id}/0-still` });
    expect(storedFiles(id)).toEqual(["0", "0-still"]);
  });
});

/** Takes `count` slots or queue places of this process's media pool until `release` is called. */
function holdPool(count: number) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const tasks = Array.from({ length: count }, () => mediaPool().run(() => held));
  return { release: async () => (release(), await Promise.all(tasks)) };
}

/** A DONE copy whose still has not been made yet, as one stored before stills existed. */
async function copyWithoutStill(label: string) {
  const { id, row } = await copied(label);
  fs.rmSync(path.join(MEDIA_DIR, "generations", id, "0-still"));
  await prisma.mediaCopy.update({ where: { id: row.id }, data: { stillKey: null, stillCheckedAt: null } });
  return { id, row };
}

describe("a busy server and a deleted copy", () => {
  test("a still the server is too busy to make is left untried, not marked as having none, and a later request makes it", async () => {
    const { id, row } = await copyWithoutStill("still-busy");
    const storage = (await getMediaStorage())!;
    // Every slot and queue place of this process's pool taken: the next piece of media work is refused as busy at once.
    const full = holdPool(env.MEDIA_CONCURRENCY * 9);
    expect(mediaPool().stats()).toMatchObject({ running: env.MEDIA_CONCURRENCY, queued: env.MEDIA_CONCURRENCY * 8 });
    const refused = await backfillStill({ copy: row, storage }).catch((error: unknown) => error).finally(full.release);
    expect(refused).toMatchObject({ code: "media_busy", headers: { "Retry-After": expect.stringMatching(/^\d+$/) } });
    expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ stillKey: null, stillCheckedAt: null });
    // Tried again no sooner than its backoff: this process answers busy without touching the row.
    await expect(backfillStill({ copy: row, storage })).rejects.toMatchObject({ code: "media_busy" });
    expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ stillKey: null, stillCheckedAt: null });

    // The app (another process, not busy) makes it on the next request.
    const still = await app.fetch(`/api/media/${row.id}/still`);
    expect(still.status).toBe(200);
    expect(isJpeg(Buffer.from(await still.arrayBuffer()))).toBe(true);
    expect(storedFiles(id)).toEqual(["0", "0-still"]);
  });

  test("a copy deleted by retention while its still is being made leaves no still behind", async () => {
    const { id, row } = await copyWithoutStill("still-orphan");
    const storage = (await getMediaStorage())!;
    const slots = holdPool(env.MEDIA_CONCURRENCY);
    // The still's download is done and its FFmpeg run waits for a slot...
    const making = backfillStill({ copy: row, storage });
    await waitFor(() => mediaPool().stats().queued === 1);
    // ...while retention deletes the copy.
    await prisma.mediaCopy.update({ where: { id: row.id }, data: { completedAt: new Date(Date.now() - 31 * 86_400_000) } });
    expect(await expireStoredMedia()).toBe(1);
    await waitFor(async () => {
      await runDueMediaJobs({ generationIds: [id] });
      return (await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).state === "DELETED";
    });
    await slots.release();
    expect(await making).toBeNull();
    expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ state: "DELETED", stillKey: null });
    expect(storedFiles(id)).toEqual([]);
  });
});
