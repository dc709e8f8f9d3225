// A still per stored video (local backend), against a real database and
// simulator: made when the copy is stored, served with the copy's owner
// scoping and headers, absent (and said so) when the video cannot be decoded,
// and made on first request for copies stored before stills existed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { readGeneration } from "../support/generations";
import { submitAndCopy } from "../support/media-copies";
import type { Scenario } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-stills-"));
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "3" } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});
beforeAll(() => app.simulator.reset(1000));

type Stored = { status: string; url: string | null; stillUrl: string | null };

const copied = (label: string, media?: Scenario["media"]) => submitAndCopy(app, { label, prompt: "lighthouse", media });

const storedFiles = (id: string) => fs.readdirSync(path.join(MEDIA_DIR, "generations", id)).sort();
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
    expect(still.headers.get("content-security-policy")).toContain("sandbox");
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
