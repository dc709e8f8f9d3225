// The hostile result of hostile-results.test.ts on the S3 backend: a
// playlist naming a file on the server, copied into a bucket, gets no still
// and gives no frame, whichever storage holds it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitAndCopy } from "../support/media-copies";
import { startS3Bucket } from "../support/s3-bucket";

const SECRET_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-secret-s3-"));
const SECRET = path.join(SECRET_DIR, "secret.mp4");
execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", SECRET]);
const PLAYLIST = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n${SECRET}\n#EXT-X-ENDLIST\n`;

const bucket = await startS3Bucket({ name: "framehook-hostile" });
const app = await startApp({ env: { ...bucket.env, MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "3" } });
const { prisma } = await import("@/lib/db");
const { uploadFromResult } = await import("@/lib/uploads/frame-upload");

afterAll(async () => {
  await app.close();
  await bucket.close();
  fs.rmSync(SECRET_DIR, { recursive: true, force: true });
});

describe("a playlist result in a bucket", () => {
  test("is kept as an opaque file with no still, and no frame can be taken from it", async () => {
    const { id, row } = await submitAndCopy(app, { label: "hostile-s3", prompt: "a playlist in a bucket", media: { body: PLAYLIST } });
    expect(row).toMatchObject({ state: "DONE", stillKey: null, contentType: "application/octet-stream" });
    expect((await fetch(`${bucket.url}/${row.storageKey}-still`, { method: "HEAD" })).status).toBe(404);
    expect((await app.fetch(`/api/media/${row.id}/still`, { redirect: "manual" })).status).toBe(404);

    const ownerId = await app.fetch.ownerId();
    await expect(uploadFromResult({ generationId: id, take: "last-frame", ownerId })).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("stored as a file") });
    expect(await prisma.upload.count({ where: { ownerId } })).toBe(0);
  });
});
