// POST /api/uploads against the real app (next start) and a local storage
// directory: a file is checked from its bytes against the model field it is
// for, hostile and out-of-limit files are refused with a field error and
// leave nothing behind, a kept file loses its metadata and is served only to
// its owner, never as a document; the quota holds. Bodies over a field's limit
// are refused unread, over raw sockets (upload-bodies.test.ts).
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { upload, type Visitor } from "../support/uploads";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-uploads-"));
const QUOTA = 2_500_000;
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", UPLOAD_QUOTA_BYTES: String(QUOTA) } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const DELTA = "delta-h3/reference-to-video";

const storedFiles = () => (fs.existsSync(path.join(MEDIA_DIR, "uploads")) ? fs.readdirSync(path.join(MEDIA_DIR, "uploads")) : []);
const rowsOf = async (visitor: Visitor) => prisma.upload.count({ where: { ownerId: await visitor.ownerId() } });

describe("hostile and out-of-limit files are refused, and nothing is stored", () => {
  const delta = { model: DELTA, field: "reference_video_urls" };
  test.each([
    ["a polyglot (PNG with a page appended)", fixtures.polyglot, {}, 415, /also holds HTML or script/],
    ["an SVG with a script, sent as image/png", fixtures.svgWithScript, { type: "image/png" }, 415, /SVG, HTML and other markup files are not accepted/],
    ["a PNG claiming 50,000 × 50,000 px", () => fixtures.pngClaiming(50_000, 50_000), {}, 422, /claims 50000 × 50000 px; images over 40 megapixels are refused unread/],
    ["a truncated MP4", () => fixtures.truncated(fixtures.clip({ seconds: 3, faststart: false })), delta, 422, /cannot be read as a video: it is damaged or truncated/],
    ["an MP4 whose header claims an hour", () => fixtures.clipClaiming(3600), delta, 422, /header says 60 min, but it holds 1 s of frames/],
    ["a text file renamed .png", fixtures.plainText, { type: "image/png" }, 415, /not a PNG, JPEG, WebP, MP4, QuickTime or WebM file/],
    ["a video where a frame goes", () => fixtures.clip({ seconds: 1 }), { type: "image/png" }, 415, /This file is an MP4 video; Alpha 2.5 first & last frame · 480p takes PNG, JPEG or WebP images\./],
    ["a clip too long for Delta H3", () => fixtures.clip({ seconds: 14, width: 320, height: 256, fps: 10 }), delta, 422, /^This clip is 14 s; Delta H3 reference takes up to 10 s\.$/],
    ["a frame too small", () => fixtures.image({ width: 200, height: 150 }), {}, 422, /This image is 200 × 150 px; .* takes at least 256 × 256 px\./],
    ["an empty body", () => Buffer.alloc(0), {}, 422, /The file is empty/],
  ])("%s", async (_name, make, options, status, message) => {
    const visitor = app.visitor();
    const field = (options as { field?: string }).field ?? "first_frame_url";
    const before = storedFiles().length;
    const { status: got, body } = await upload(visitor, make(), options);
    expect(got).toBe(status);
    expect(body.error?.message).toMatch(message);
    // One shape for the form and the API: the message, keyed by the field.
    expect(body.error?.fields?.[field]).toEqual([body.error?.message]);
    expect(await rowsOf(visitor)).toBe(0);
    expect(storedFiles().length).toBe(before);
  });

  test("a model or field that takes no file is a field error", async () => {
    const visitor = app.visitor();
    expect(await upload(visitor, fixtures.image(), { model: "alpha-2.5-text-to-video" })).toMatchObject({ status: 422, body: { error: { fields: { field: ["This model takes no files"] } } } });
    expect(await upload(visitor, fixtures.image(), { model: "nope" })).toMatchObject({ status: 422, body: { error: { fields: { model: ["Choose one of the listed models"] } } } });
  });
});

describe("a kept upload", () => {
  test("is read from its bytes, stripped of metadata, and served to its owner only, never as a document", async () => {
    const visitor = app.visitor();
    const { status, body } = await upload(visitor, fixtures.image({ format: "jpeg", width: 800, height: 600, marker: "FRAMEHOOK-GPS-51.5N" }), { type: "text/html" });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: expect.stringMatching(/^upl_[a-z0-9]{24}$/), format: "jpeg", contentType: "image/jpeg", width: 800, height: 600, model: FRAMES, field: "first_frame_url" });
    const row = await prisma.upload.findUniqueOrThrow({ where: { id: body.id! } });
    expect(row).toMatchObject({ ownerId: await visitor.ownerId(), usedAt: null, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const served = await visitor(`/api/uploads/${body.id}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    // Its own policy, not replaced by the one every page gets: a sandbox, and no site may frame it.
    expect(served.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
    expect(served.headers.get("x-frame-options")).toBe("DENY");
    expect(served.headers.get("content-disposition")).toBe(`inline; filename="${body.id}.jpeg"`);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.length).toBe(row.size);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(row.sha256);
    expect(bytes.includes("FRAMEHOOK-GPS")).toBe(false);
    expect(fs.readFileSync(path.join(MEDIA_DIR, "uploads", body.id!)).includes("FRAMEHOOK-GPS")).toBe(false);

    expect((await app.visitor()(`/api/uploads/${body.id}`)).status).toBe(404);
    expect((await app.visitor()(`/api/uploads/${body.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await visitor(`/api/uploads/${body.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await prisma.upload.findUnique({ where: { id: body.id! } })).toBeNull();
    expect(storedFiles()).not.toContain(body.id);
  });

  test("a clip that fits is read for its size, length, rate and codec", async () => {
    const visitor = app.visitor();
    const { status, body } = await upload(visitor, fixtures.clip({ seconds: 2, fps: 24 }), { model: DELTA, field: "reference_video_urls" });
    expect(status).toBe(201);
    expect(body).toMatchObject({ format: "mp4", contentType: "video/mp4", width: 640, height: 360, fps: 24, codec: "h264" });
    expect(body.durationSeconds).toBeCloseTo(2, 1);
    // What is stored is the whole rewritten file, the one its hash names.
    const stored = fs.readFileSync(path.join(MEDIA_DIR, "uploads", body.id!));
    expect(stored.length).toBe(body.size);
    expect(createHash("sha256").update(stored).digest("hex")).toBe(body.sha256);
  });

  test("the quota: past UPLOAD_QUOTA_BYTES an owner's next file is refused; another owner is unaffected", async () => {
    const visitor = app.visitor();
    const noisy = () => fixtures.image({ width: 1200, height: 1200, noise: true });
    expect((await upload(visitor, noisy())).status).toBe(201);
    const second = await upload(visitor, noisy());
    expect(second.status).toBe(413);
    expect(second.body.error).toMatchObject({ code: "upload_quota", message: expect.stringMatching(/each visitor may keep/) });
    expect(await rowsOf(visitor)).toBe(1);
    expect((await upload(app.visitor(), noisy())).status).toBe(201);
  }, 60_000);
});
