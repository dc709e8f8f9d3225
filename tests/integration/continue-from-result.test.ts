// Continuing from a result, against the real app, simulator and local
// storage: the stored copy of a Ready video (never the gateway's link)
// becomes an upload through the same checks, as a reference video or a
// frame; the gallery picker lists only the owner's own kept results.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitAndCopy } from "../support/media-copies";
import { uniqueMarker } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-continue-"));
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local" } });
const { prisma } = await import("@/lib/db");
const { uploadFromResult } = await import("@/lib/uploads/frame-upload");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

type Sources = { items: { id: string; prompt: string; durationSeconds: number | null; stillUrl: string | null }[] };

describe("continue from a result", () => {
  test("the video as a reference: read from the kit's copy, checked, and fetched by the gateway in a new task", async () => {
    const { id } = await submitAndCopy(app, { label: "continue-video", prompt: "a kite over dunes" });
    const ownerId = await app.fetch.ownerId();

    // The picker lists it for its owner only.
    const mine = (await (await app.fetch("/api/uploads/gallery")).json()) as Sources;
    expect(mine.items.find((item) => item.id === id)).toMatchObject({ durationSeconds: 2, stillUrl: expect.stringMatching(/^\/api\/media\/.+\/still$/) });
    const theirs = (await (await app.visitor()("/api/uploads/gallery")).json()) as Sources;
    expect(theirs.items.map((item) => item.id)).not.toContain(id);

    const { upload, model, field } = await uploadFromResult({ generationId: id, take: "video", ownerId });
    expect({ model, field }).toEqual({ model: "delta-h3/reference-to-video", field: "reference_video_urls" });
    expect(upload).toMatchObject({ format: "mp4", contentType: "video/mp4" });
    expect(upload.durationSeconds).toBeGreaterThan(0);
    expect(await prisma.upload.findUniqueOrThrow({ where: { id: upload.id } })).toMatchObject({ ownerId, model, field });

    const marker = uniqueMarker("continue-ref");
    const submitted = await app.fetch("/api/generations", { method: "POST", json: { model, input: { prompt: `the kite, at night ${marker}`, reference_video_urls: [upload.id], duration: 2 } } });
    expect(submitted.status).toBe(201);
    const { id: next } = (await submitted.json()) as { id: string };
    await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id: next } })).state === "SUCCESS");
    expect((await app.simulator.inputs(marker)).map((f) => [f.field, f.status, f.ok])).toEqual([["reference_video_urls[0]", 200, true]]);
  });

  test("a frame for the field that asked (the picker's target), and into a field of the wrong kind: refused, nothing stored", async () => {
    const { id } = await submitAndCopy(app, { label: "continue-frame", prompt: "a heron takes off" });
    const ownerId = await app.fetch.ownerId();
    const frames = "alpha-2.5-first-last-frame-480p";
    const { upload } = await uploadFromResult({ generationId: id, take: "first-frame", ownerId, target: { model: frames, field: "last_frame_url" } });
    expect(upload).toMatchObject({ model: frames, field: "last_frame_url", format: "png", durationSeconds: null });

    const before = await prisma.upload.count({ where: { ownerId } });
    await expect(uploadFromResult({ generationId: id, take: "video", ownerId, target: { model: frames, field: "first_frame_url" } })).rejects.toMatchObject({
      code: "unsupported_media_type",
      message: expect.stringMatching(/This file is an MP4 video; .* takes PNG, JPEG or WebP images\./),
    });
    expect(await prisma.upload.count({ where: { ownerId } })).toBe(before);
  });

  test("another visitor's result is not there to continue from", async () => {
    const { id } = await submitAndCopy(app, { label: "continue-other", prompt: "a lighthouse at dusk" });
    const stranger = await app.visitor().ownerId();
    await expect(uploadFromResult({ generationId: id, take: "video", ownerId: stranger })).rejects.toMatchObject({ code: "not_found" });
    expect(await prisma.upload.count({ where: { ownerId: stranger } })).toBe(0);
  });
});
