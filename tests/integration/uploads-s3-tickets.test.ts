// Finalize tickets of direct (S3) uploads, while the posted file still waits in
// the bucket under uploads/incoming/: a ticket is its owner's alone, and it
// lapses. Each case posts the file and stops short of the owner's finalize, so
// the answer depends on the ticket's check and not on a file already gone.
import { createHmac } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { startS3Bucket } from "../support/s3-bucket";
import type { PresignAnswer, Visitor } from "../support/uploads";

const BUCKET = "framehook-upload-tickets";
const bucket = await startS3Bucket({ name: BUCKET });
const app = await startApp({ env: bucket.env });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await bucket.close();
});

const FRAMES = "alpha-2.5-first-last-frame-480p";

/** Presigns as `visitor` and posts `bytes` to the bucket as a browser would; no finalize. */
async function presignAndPost(visitor: Visitor, bytes: Buffer): Promise<PresignAnswer> {
  const started = await visitor("/api/uploads/presign", { method: "POST", json: { model: FRAMES, field: "first_frame_url" } });
  expect(started.status).toBe(200);
  const start = (await started.json()) as PresignAnswer;
  const form = new FormData();
  for (const [name, value] of Object.entries(start.fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "frame.png");
  const posted = await fetch(start.url, { method: "POST", body: form });
  await posted.arrayBuffer();
  expect(posted.status).toBe(204);
  return start;
}

/** The object the browser posted, or null once it is gone. */
async function postedObject(start: PresignAnswer): Promise<Buffer | null> {
  const response = await fetch(`${bucket.url}/${start.fields.key}`);
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const finalize = (visitor: Visitor, token: string) => visitor("/api/uploads/finalize", { method: "POST", json: { token } });

/**
 * The same ticket with another expiry, signed as the app signs tickets (a key
 * derived from WEBHOOK_SECRET, which the tests share with the app): the app's
 * clock cannot be moved, so a lapsed ticket is made rather than waited for.
 */
function withExpiry(token: string, expires: number): string {
  const [payload] = token.split(".");
  const ticket = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as Record<string, unknown>;
  expect(typeof ticket.expires).toBe("number");
  const changed = Buffer.from(JSON.stringify({ ...ticket, expires })).toString("base64url");
  const key = createHmac("sha256", process.env.WEBHOOK_SECRET!).update("framehook upload tickets").digest();
  return `${changed}.${createHmac("sha256", key).update(changed).digest("base64url")}`;
}

describe("a finalize ticket", () => {
  test("finalized by another visitor before its owner: 404, no row for anyone, and the posted file still its owner's", async () => {
    const owner = app.visitor();
    const stranger = app.visitor();
    const bytes = fixtures.image({ width: 640, height: 480 });
    const start = await presignAndPost(owner, bytes);
    await stranger.ownerId();

    const taken = await finalize(stranger, start.finalize.token);
    expect(taken.status).toBe(404);
    expect(await taken.json()).toMatchObject({ error: { code: "not_found" } });
    expect(await prisma.upload.findUnique({ where: { id: start.id } })).toBeNull();
    expect(await prisma.upload.count({ where: { ownerId: await stranger.ownerId() } })).toBe(0);
    expect(await postedObject(start)).toEqual(bytes);

    // Its owner finalizes it afterwards as if nothing had happened.
    const kept = await finalize(owner, start.finalize.token);
    expect(kept.status).toBe(201);
    expect(await prisma.upload.findUniqueOrThrow({ where: { id: start.id } })).toMatchObject({ ownerId: await owner.ownerId() });
    expect(await postedObject(start)).toBeNull();
  });

  test("past its expiry: 410, no row, and the posted file deleted", async () => {
    const owner = app.visitor();
    const start = await presignAndPost(owner, fixtures.image({ width: 640, height: 480 }));
    expect(await postedObject(start)).not.toBeNull();

    const lapsed = await finalize(owner, withExpiry(start.finalize.token, Math.floor(Date.now() / 1000) - 1));
    expect(lapsed.status).toBe(410);
    expect(await lapsed.json()).toMatchObject({ error: { code: "gone", message: expect.stringMatching(/not finished in time/) } });
    expect(await prisma.upload.findUnique({ where: { id: start.id } })).toBeNull();
    expect(await postedObject(start)).toBeNull();

    // The forged-expiry helper signs as the app does: the same payload, unexpired, is accepted (but the file is gone).
    const fresh = await finalize(owner, withExpiry(start.finalize.token, Math.floor(Date.now() / 1000) + 600));
    expect(fresh.status).toBe(404);
    expect(await fresh.json()).toMatchObject({ error: { code: "not_found", message: expect.stringMatching(/No file has been posted/) } });
  });
});
