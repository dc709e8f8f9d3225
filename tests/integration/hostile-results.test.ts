// A result that is not a video, against the real app, simulator and local
// storage: an HLS playlist (served as video/mp4) whose one segment is a file
// on the server's disk. FFmpeg left to guess would read that file through:
// the still would be a frame of it, and "use last frame" would turn it into
// an upload. The copy is kept as an opaque download with no still, says so,
// and nothing can be taken from it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { readGeneration } from "../support/generations";
import { submitAndCopy } from "../support/media-copies";

// This file's media directory (tests/support/file-database.ts): its apps store uploads and copies there.
const MEDIA_DIR = process.env.MEDIA_LOCAL_DIR!;
// A file of the server's that no visitor may see: a small clip.
const SECRET_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-secret-"));
const SECRET = path.join(SECRET_DIR, "secret.mp4");
execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", SECRET]);
const PLAYLIST = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\n${SECRET}\n#EXT-X-ENDLIST\n`;

const app = await startApp({ env: { MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "3" } });
const { prisma } = await import("@/lib/db");
const { uploadFromResult } = await import("@/lib/uploads/frame-upload");

afterAll(async () => {
  await app.close();
  fs.rmSync(SECRET_DIR, { recursive: true, force: true });
});

type Stored = { status: string; url: string | null; stillUrl: string | null; kind: string };
const storedFiles = (id: string) => fs.readdirSync(path.join(MEDIA_DIR, "generations", id)).sort();

describe("a result that is a playlist naming a file on the server", () => {
  test("is stored as an opaque download: no still, no player, served as an attachment", async () => {
    const { id, row } = await submitAndCopy(app, { label: "hostile-hls", prompt: "a playlist", media: { body: PLAYLIST } });
    expect(row).toMatchObject({ state: "DONE", stillKey: null, contentType: "application/octet-stream", size: Buffer.byteLength(PLAYLIST) });
    expect(row.stillCheckedAt).not.toBeNull();
    expect(storedFiles(id)).toEqual(["0"]);

    const generation = (await readGeneration(app, id)) as unknown as { storedMedia: Stored[] };
    expect(generation.storedMedia).toEqual([expect.objectContaining({ status: "done", url: `/api/media/${row.id}`, stillUrl: null, kind: "file" })]);
    expect((await app.fetch(`/api/media/${row.id}/still`)).status).toBe(404);

    const served = await app.fetch(`/api/media/${row.id}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("application/octet-stream");
    expect(served.headers.get("content-disposition")).toBe("attachment");
    expect(await served.text()).toBe(PLAYLIST);

    // The detail page says what it is, instead of a player that cannot play it.
    const page = await (await app.fetch(`/generations/${id}`)).text();
    expect(page).toContain("Stored as a file; no preview");
    expect(page).not.toContain(`<video`);
  });

  test("no frame and no video can be taken from it, and the gallery picker does not offer it", async () => {
    const { id } = await submitAndCopy(app, { label: "hostile-frame", prompt: "a playlist again", media: { body: PLAYLIST } });
    const ownerId = await app.fetch.ownerId();
    for (const take of ["last-frame", "first-frame"] as const) {
      await expect(uploadFromResult({ generationId: id, take, ownerId })).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("stored as a file") });
    }
    await expect(uploadFromResult({ generationId: id, take: "video", ownerId })).rejects.toMatchObject({ code: "unsupported_media_type" });
    expect(await prisma.upload.count({ where: { ownerId } })).toBe(0);

    const sources = (await (await app.fetch("/api/uploads/gallery")).json()) as { items: { id: string }[] };
    expect(sources.items.map((item) => item.id)).not.toContain(id);
  });

  test("a copy stored before its bytes were sniffed gets no still on its first request, and becomes a download", async () => {
    const { id, row } = await submitAndCopy(app, { label: "hostile-backfill", prompt: "an old playlist", media: { body: PLAYLIST } });
    await prisma.mediaCopy.update({ where: { id: row.id }, data: { stillKey: null, stillCheckedAt: null, contentType: "video/mp4" } });

    expect((await app.fetch(`/api/media/${row.id}/still`)).status).toBe(404);
    expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ stillKey: null, contentType: "application/octet-stream", stillCheckedAt: expect.any(Date) });
    expect(storedFiles(id)).toEqual(["0"]);
  });
});
