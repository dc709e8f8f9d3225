// The app on a machine without FFmpeg (none on its PATH, nor on this test's,
// which runs the copy jobs and the frame code in-process): uploads are
// checked with npm packages alone and accepted; a stored video gets no still
// (its tile falls back to the placeholder, and the still stays untried for
// when FFmpeg is installed); taking a frame answers 503
// media_toolchain_missing with the doctor's fix, never a 500, and stores
// nothing.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitAndCopy } from "../support/media-copies";
import * as fixtures from "../support/media-fixtures";
import { callAction } from "../support/server-actions";
import { upload } from "../support/uploads";
import { pathWithoutFfmpeg, runsOn } from "../support/without-ffmpeg";

// Made while FFmpeg is still on this process's PATH: startApp sets the app's PATH here too.
const png = fixtures.image({ format: "png", width: 640, height: 480 });
const jpeg = fixtures.image({ format: "jpeg", width: 800, height: 600 });
const mp4 = fixtures.clip({ seconds: 2, fps: 24 });

// This file's media directory (tests/support/file-database.ts): its apps store uploads and copies there.
const MEDIA_DIR = process.env.MEDIA_LOCAL_DIR!;
const noFfmpeg = pathWithoutFfmpeg();
const app = await startApp({ env: { PATH: noFfmpeg.PATH } });
const { prisma } = await import("@/lib/db");
const { uploadFromResult } = await import("@/lib/uploads/frame-upload");

afterAll(async () => {
  await app.close();
  noFfmpeg.remove();
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const DELTA = "delta-h3/reference-to-video";

const storedFiles = () => (fs.existsSync(path.join(MEDIA_DIR, "uploads")) ? fs.readdirSync(path.join(MEDIA_DIR, "uploads")).sort() : []);

test("the app's PATH has node but no ffmpeg or ffprobe", () => {
  expect(process.env.PATH).toBe(noFfmpeg.PATH);
  expect(runsOn(noFfmpeg.PATH, "node", ["--version"])).toBe(true);
  expect(runsOn(noFfmpeg.PATH, "ffmpeg")).toBe(false);
  expect(runsOn(noFfmpeg.PATH, "ffprobe")).toBe(false);
});

describe("uploads need no FFmpeg", () => {
  test.each([
    ["a PNG frame", png, FRAMES, "first_frame_url", { format: "png", width: 640, height: 480 }],
    ["a JPEG frame", jpeg, FRAMES, "last_frame_url", { format: "jpeg", width: 800, height: 600 }],
    ["an MP4 reference clip", mp4, DELTA, "reference_video_urls", { format: "mp4", width: 640, height: 360, codec: "h264" }],
  ])("%s is accepted", async (_name, bytes, model, field, facts) => {
    const { status, body } = await upload(app.visitor(), bytes, { model, field });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject(facts);
  });
});

describe("a Ready generation without FFmpeg", () => {
  test("its tile's still is not there (the placeholder shows), and stays untried for later", async () => {
    const { id, row } = await submitAndCopy(app, { label: "no-ffmpeg-still", prompt: "a paper boat on a pond" });
    expect(row.state).toBe("DONE");
    const generation = (await (await app.fetch(`/api/generations/${id}`)).json()) as { storedMedia: { stillUrl: string | null; status: string }[] };
    expect(generation.storedMedia[0]).toMatchObject({ status: "done" });
    const still = await app.fetch(generation.storedMedia[0]!.stillUrl!);
    expect(still.status).toBe(404);
    expect(still.headers.get("content-type")).toMatch(/application\/json/);
    // The video itself plays from the kit's copy.
    expect((await app.fetch(`/api/media/${row.id}`, { method: "HEAD" })).status).toBe(200);
    expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ stillKey: null, stillCheckedAt: null });
  });

  test("use last frame: 503 media_toolchain_missing with the doctor's fix, nothing stored", async () => {
    const { id } = await submitAndCopy(app, { label: "no-ffmpeg-frame", prompt: "a kite over dunes" });
    const ownerId = await app.fetch.ownerId();
    const before = await prisma.upload.count({ where: { ownerId } });
    const filesBefore = storedFiles();

    for (const take of ["last-frame", "first-frame"] as const) {
      await expect(uploadFromResult({ generationId: id, take, ownerId })).rejects.toMatchObject({
        code: "media_toolchain_missing",
        status: 503,
        message: expect.stringMatching(/needs FFmpeg on the server.*run `npm run doctor`/),
      });
    }
    // What the card's button gets from the app: the same words, not "Something went wrong".
    const answer = await callAction(app.fetch, "continueFromResultAction", [id, "last-frame"]);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("Taking a frame from a video needs FFmpeg on the server");
    expect(answer.text).toContain("npm run doctor");
    expect(answer.text).not.toContain("Something went wrong");

    expect(await prisma.upload.count({ where: { ownerId } })).toBe(before);
    expect(storedFiles()).toEqual(filesBefore);
  });
});
