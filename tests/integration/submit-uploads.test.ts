// Submitting with upload ids where the model takes URLs, against the real app
// and simulator: the gateway receives signed, expiring links on the app's
// public origin and fetches every one; an upload that is not the submitter's,
// or does not fit this model, or a URL on a private host, is refused before
// any generation row or credit hold exists; cleanup follows use and retention.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import type { GenerationBody } from "../support/generations";
import * as fixtures from "../support/media-fixtures";
import { uniqueMarker } from "../support/simulator-control";
import { uploadId, type Visitor } from "../support/uploads";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-submit-uploads-"));
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", UPLOAD_UNUSED_HOURS: "1", UPLOAD_RETENTION_DAYS: "1" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { inputLinkFor } = await import("@/lib/uploads/upload-links");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const frame = () => fixtures.image({ width: 640, height: 480 });

async function submit(visitor: Visitor, model: string, input: Record<string, unknown>) {
  const response = await visitor("/api/generations", { method: "POST", json: { model, input } });
  return { status: response.status, body: (await response.json()) as { id?: string; error?: { code: string; message: string; fields?: Record<string, string[]> } } };
}

/** The generation as its owner reads it. */
const readAs = async (visitor: Visitor, id: string) => (await (await visitor(`/api/generations/${id}`)).json()) as GenerationBody & { input: Record<string, unknown> };

const generationsOf = async (visitor: Visitor) => prisma.generation.count({ where: { ownerId: await visitor.ownerId() } });

describe("upload ids where URLs go", () => {
  test("two frames: the gateway fetches both from signed links on the app's origin, and the video is made", async () => {
    const visitor = app.visitor();
    const first = await uploadId(visitor, frame());
    const last = await uploadId(visitor, frame(), { field: "last_frame_url" });
    const marker = uniqueMarker("frames");
    const { status, body } = await submit(visitor, FRAMES, { prompt: `bud opens ${marker}`, first_frame_url: first, last_frame_url: last, duration: 2 });
    expect(status).toBe(201);
    await waitFor(async () => (await readAs(visitor, body.id!)).state === "SUCCESS");

    const fetched = await app.simulator.inputs(marker);
    expect(fetched.map((f) => [f.field, f.status, f.ok])).toEqual([
      ["first_frame_url", 200, true],
      ["last_frame_url", 200, true],
    ]);
    expect(fetched[0]!.url).toMatch(new RegExp(`^${app.baseUrl}/api/inputs/${first}\\?expires=\\d+&sig=`));
    expect(fetched[0]!.bytes).toBe((await prisma.upload.findUniqueOrThrow({ where: { id: first } })).size);
    // The owner's stored input keeps the ids; the uploads now belong to the generation.
    expect(await readAs(visitor, body.id!)).toMatchObject({ input: { first_frame_url: first, last_frame_url: last } });
    expect(await prisma.upload.findMany({ where: { id: { in: [first, last] } }, select: { generationId: true } })).toEqual([{ generationId: body.id }, { generationId: body.id }]);
  });

  test("a reference clip checked for one model is checked again for another: too long for Gamma, refused before any row", async () => {
    const visitor = app.visitor();
    const clip = await uploadId(visitor, fixtures.clip({ seconds: 9, width: 320, height: 256, fps: 8 }), { model: "beta-1-1/reference-to-video", field: "reference_video_urls" });
    const before = await app.simulator.credits();
    const { status, body } = await submit(visitor, "gamma/reference-to-video", { prompt: "same dance", reference_video_urls: [clip] });
    expect(status).toBe(422);
    expect(body.error?.fields?.reference_video_urls).toEqual(["This clip is 9 s; Gamma reference takes up to 8 s."]);
    expect(await generationsOf(visitor)).toBe(0);
    expect(await app.simulator.credits()).toBe(before);
    // The same clip fits Delta H3 (up to 10 s).
    expect((await submit(visitor, "delta-h3/reference-to-video", { prompt: "same dance", reference_video_urls: [clip], duration: 2 })).status).toBe(201);
  });

  test("another visitor's upload id, or one that was deleted, is refused as gone", async () => {
    const owner = app.visitor();
    const theirs = await uploadId(owner, frame());
    const thief = app.visitor();
    const mine = await uploadId(thief, frame());
    const { status, body } = await submit(thief, FRAMES, { prompt: "borrowed", first_frame_url: mine, last_frame_url: theirs });
    expect(status).toBe(422);
    expect(body.error?.fields?.last_frame_url?.[0]).toMatch(/^This upload is gone .* or is not yours/);
    expect(body.error?.fields?.first_frame_url).toBeUndefined();
    expect(await generationsOf(thief)).toBe(0);
  });

  test("a pasted URL on a private address is refused, and nobody fetches it", async () => {
    const visitor = app.visitor();
    const marker = uniqueMarker("private");
    const { status, body } = await submit(visitor, FRAMES, { prompt: `x ${marker}`, first_frame_url: "http://169.254.169.254/latest/meta-data", last_frame_url: "http://10.0.0.5/b.png" });
    expect(status).toBe(422);
    expect(body.error?.fields).toEqual({
      first_frame_url: ["169.254.169.254 is not a public address: the gateway could not fetch it. Upload the file instead."],
      last_frame_url: ["10.0.0.5 is not a public address: the gateway could not fetch it. Upload the file instead."],
    });
    expect(await app.simulator.tasks(marker)).toEqual([]);
  });

  test("an input the gateway cannot fetch fails the task at no charge, with the gateway's reason", async () => {
    const visitor = app.visitor();
    const first = await uploadId(visitor, frame());
    const last = await uploadId(visitor, frame(), { field: "last_frame_url" });
    fs.rmSync(path.join(MEDIA_DIR, "uploads", last)); // lost from storage after it was checked
    const marker = uniqueMarker("lost");
    const { status, body } = await submit(visitor, FRAMES, { prompt: `lost ${marker}`, first_frame_url: first, last_frame_url: last, duration: 2 });
    expect(status).toBe(201);
    await waitFor(async () => (await readAs(visitor, body.id!)).state === "FAILURE");
    const generation = await readAs(visitor, body.id!);
    expect(generation.creditsConsumed).toBe(0);
    expect(generation.error?.message).toMatch(/last_frame_url: fetching it answered HTTP 404/);
  });
});

describe("signed input links", () => {
  test("need no cookie, but a valid signature; an expired one answers 410", async () => {
    const id = await uploadId(app.visitor(), frame());
    const link = inputLinkFor(id);
    const anonymous = await fetch(link);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get("content-type")).toBe("image/png");
    expect(anonymous.headers.get("x-content-type-options")).toBe("nosniff");
    const url = new URL(link);
    url.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 1));
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/api/inputs/${id}`)).status).toBe(404);
    expect((await fetch(inputLinkFor(id, Date.now() - (env.UPLOAD_LINK_SECONDS + 5) * 1000))).status).toBe(410);
  });
});

describe("cleanup from the cron", () => {
  test("unused uploads go after UPLOAD_UNUSED_HOURS, a finished generation's after UPLOAD_RETENTION_DAYS; one in flight keeps its inputs", async () => {
    const visitor = app.visitor();
    const unused = await uploadId(visitor, frame());
    const fresh = await uploadId(visitor, frame());
    const [doneFirst, doneLast, flyingFirst, flyingLast] = [await uploadId(visitor, frame()), await uploadId(visitor, frame(), { field: "last_frame_url" }), await uploadId(visitor, frame()), await uploadId(visitor, frame(), { field: "last_frame_url" })];
    const marker = uniqueMarker("cleanup");
    await app.simulator.scenario({ match: `${marker}-flying`, pendingMs: 120_000, callback: { mode: "drop" } });
    const done = await submit(visitor, FRAMES, { prompt: `done ${marker}`, first_frame_url: doneFirst, last_frame_url: doneLast, duration: 2 });
    const flying = await submit(visitor, FRAMES, { prompt: `flying ${marker}-flying`, first_frame_url: flyingFirst, last_frame_url: flyingLast, duration: 2 });
    // Six uploads (each decoded and re-encoded), two submits and a generation: a loaded machine takes well past the default 30 s.
    await waitFor(async () => (await readAs(visitor, done.body.id!)).state === "SUCCESS", 60_000);
    expect((await readAs(visitor, flying.body.id!)).state).toBe("PENDING");

    const longAgo = new Date(Date.now() - 3 * 86_400_000);
    await prisma.upload.updateMany({ where: { id: { in: [unused] } }, data: { createdAt: longAgo } });
    await prisma.upload.updateMany({ where: { id: { in: [doneFirst, doneLast, flyingFirst, flyingLast] } }, data: { createdAt: longAgo, usedAt: longAgo } });
    const response = await app.fetch("/api/cron/reconcile", { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { deletedUploads: number }).deletedUploads).toBeGreaterThanOrEqual(3);

    const left = (await prisma.upload.findMany({ where: { ownerId: await visitor.ownerId() }, select: { id: true } })).map((u) => u.id).sort();
    expect(left).toEqual([fresh, flyingFirst, flyingLast].sort());
    const files = fs.readdirSync(path.join(MEDIA_DIR, "uploads"));
    for (const id of [unused, doneFirst, doneLast]) expect(files).not.toContain(id);
    for (const id of [fresh, flyingFirst, flyingLast]) expect(files).toContain(id);
  }, 120_000);
});
