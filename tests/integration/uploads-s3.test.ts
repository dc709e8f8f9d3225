// Uploads straight to an S3 bucket (s3rver, in this process, on loopback): the
// app hands out a presigned POST whose policy fixes the key and caps the size,
// the file goes to the bucket, and finalize reads it back and checks it like
// the streaming route does. s3rver does not enforce a POST policy, so an
// oversize object does reach the bucket here: finalize's own check refuses it
// and deletes it, as it would anything a lax S3-compatible service let through.
// The form's own path (a browser posting to the bucket) runs in Chromium.
import { createHash, createHmac } from "node:crypto";
import fs from "node:fs";
import { chromium } from "@playwright/test";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { startS3Bucket } from "../support/s3-bucket";
import { uniqueMarker } from "../support/simulator-control";
import { presignAndPost, uploadDirect, type PresignAnswer, type Visitor } from "../support/uploads";

const BUCKET = "framehook-uploads";
// The browser posts across origins: the bucket allows it (docs/operations.md names the same CORS rule).
const CORS = `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>POST</AllowedMethod><AllowedHeader>*</AllowedHeader></CORSRule></CORSConfiguration>`;
const bucket = await startS3Bucket({ name: BUCKET, configs: [CORS] });

const app = await startApp({ env: bucket.env });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await bucket.close();
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const TEN_MB = 10 * 1024 * 1024;

/** Keys in the bucket under uploads/. */
async function uploadKeys(): Promise<string[]> {
  const xml = await (await fetch(`${bucket.url}?list-type=2&prefix=uploads/`)).text();
  return Array.from(xml.matchAll(/<Key>([^<]+)<\/Key>/g), (m) => m[1]!);
}
const rowsOf = async (visitor: Visitor) => prisma.upload.count({ where: { ownerId: await visitor.ownerId() } });

describe("a presigned POST", () => {
  test("fixes the key under uploads/incoming/, caps the size at the field's limit, and expires soon", async () => {
    const visitor = app.visitor();
    const answer = await visitor("/api/uploads/presign", { method: "POST", json: { model: FRAMES, field: "first_frame_url" } });
    expect(answer.status).toBe(200);
    const start = (await answer.json()) as { method: string; id: string; url: string; fields: Record<string, string>; maxBytes: number };
    expect(start).toMatchObject({ method: "post", url: expect.stringContaining(`/${BUCKET}`), maxBytes: TEN_MB, fields: { key: `uploads/incoming/${start.id}` } });
    const policy = JSON.parse(Buffer.from(start.fields.Policy!, "base64").toString("utf8")) as { expiration: string; conditions: unknown[] };
    expect(policy.conditions).toContainEqual(["content-length-range", 1, TEN_MB]);
    expect(policy.conditions).toContainEqual({ key: `uploads/incoming/${start.id}` });
    expect(new Date(policy.expiration).getTime() - Date.now()).toBeLessThanOrEqual(600_000);
    expect(JSON.stringify(start)).not.toContain("S3RVER\""); // the secret key never leaves the server
  });

  test("a file already known too large, or for a field that takes none, is refused before any form is signed", async () => {
    const visitor = app.visitor();
    const tooLarge = await visitor("/api/uploads/presign", { method: "POST", json: { model: FRAMES, field: "first_frame_url", size: TEN_MB + 1 } });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: "payload_too_large", fields: { first_frame_url: [expect.stringMatching(/takes up to 10 MB/)] } } });
    const noField = await visitor("/api/uploads/presign", { method: "POST", json: { model: "alpha-2.5-text-to-video", field: "prompt" } });
    expect(noField.status).toBe(422);
    expect((await visitor("/api/uploads/presign", { method: "POST", json: { model: 3 } })).status).toBe(422);
  });
});

describe("finalize", () => {
  test("a good image is read back, stored rewritten under its own key, the posted object deleted, and usable in a submit", async () => {
    const visitor = app.visitor();
    const { postStatus, status, body, start } = await uploadDirect(visitor, fixtures.image({ format: "jpeg", width: 800, height: 600, marker: "FRAMEHOOK-GPS-51.5N" }));
    expect(postStatus).toBe(204);
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: start.id, format: "jpeg", width: 800, height: 600, model: FRAMES, field: "first_frame_url" });
    const row = await prisma.upload.findUniqueOrThrow({ where: { id: start.id } });
    expect(row).toMatchObject({ ownerId: await visitor.ownerId(), storageKey: `uploads/${start.id}` });
    const keys = await uploadKeys();
    expect(keys).toContain(`uploads/${start.id}`);
    expect(keys).not.toContain(`uploads/incoming/${start.id}`);
    const stored = Buffer.from(await (await fetch(`${bucket.url}/uploads/${start.id}`)).arrayBuffer());
    expect(stored.length).toBe(row.size);
    expect(createHash("sha256").update(stored).digest("hex")).toBe(row.sha256);
    expect(stored.includes("FRAMEHOOK-GPS")).toBe(false);

    // Finalizing again answers the same upload; another visitor's ticket is a 404.
    const again = await visitor(start.finalize.url, { method: "POST", json: { token: start.finalize.token } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(start.id);
    expect((await app.visitor()(start.finalize.url, { method: "POST", json: { token: start.finalize.token } })).status).toBe(404);
    expect((await visitor(start.finalize.url, { method: "POST", json: { token: `${start.finalize.token}x` } })).status).toBe(404);

    const last = await uploadDirect(visitor, fixtures.image({ width: 640, height: 480 }), { field: "last_frame_url" });
    expect(last.status).toBe(201);
    const marker = uniqueMarker("s3-frames");
    const submitted = await visitor("/api/generations", {
      method: "POST",
      json: { model: FRAMES, input: { prompt: `bud opens ${marker}`, first_frame_url: start.id, last_frame_url: last.start.id, duration: 2 } },
    });
    expect(submitted.status).toBe(201);
    const { id } = (await submitted.json()) as { id: string };
    await waitFor(async () => ((await (await visitor(`/api/generations/${id}`)).json()) as { state: string }).state === "SUCCESS");
    const fetched = await app.simulator.inputs(marker);
    expect(fetched.map((f) => [f.field, f.status, f.ok])).toEqual([
      ["first_frame_url", 200, true],
      ["last_frame_url", 200, true],
    ]);
    expect(fetched[0]!.bytes).toBe(row.size);
  });

  test.each([
    // s3rver stores it (it ignores the policy): finalize refuses it from the object's size, unread.
    ["an oversize image", () => Buffer.concat([fixtures.image(), Buffer.alloc(TEN_MB, 7)]), 413, "payload_too_large", /takes up to 10 MB/],
    ["a text file posted as image/png", fixtures.plainText, 415, "unsupported_media_type", /not a PNG, JPEG, WebP, MP4, QuickTime or WebM file/],
    ["an SVG with a script", fixtures.svgWithScript, 415, "unsupported_media_type", /SVG, HTML and other markup files are not accepted/],
  ])("%s is refused at finalize with the streaming route's error shape, and nothing is stored", async (_name, make, status, code, message) => {
    const visitor = app.visitor();
    const answer = await uploadDirect(visitor, make(), { type: "image/png" });
    expect(answer.postStatus).toBe(204);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(answer.body.error?.fields?.first_frame_url).toEqual([answer.body.error?.message]);
    expect(await rowsOf(visitor)).toBe(0);
    const keys = await uploadKeys();
    expect(keys.filter((key) => key.endsWith(answer.start.id))).toEqual([]);
  });

  test("before anything was posted: a 404 naming the field, and the ticket still works once the file is there", async () => {
    const visitor = app.visitor();
    const start = (await (await visitor("/api/uploads/presign", { method: "POST", json: { model: FRAMES, field: "first_frame_url" } })).json()) as {
      url: string;
      fields: Record<string, string>;
      finalize: { url: string; token: string };
    };
    const early = await visitor(start.finalize.url, { method: "POST", json: { token: start.finalize.token } });
    expect(early.status).toBe(404);
    expect(await early.json()).toMatchObject({ error: { code: "not_found", fields: { first_frame_url: [expect.stringMatching(/No file has been posted/)] } } });
    expect(await rowsOf(visitor)).toBe(0);
  });
});

describe("the form", () => {
  test("posts a picked file straight to the bucket (presign, post, finalize) and shows what the server read", async () => {
    const browser = await chromium.launch({
      executablePath: fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    });
    try {
      const page = await browser.newPage();
      const posts: string[] = [];
      page.on("request", (request) => request.method() === "POST" && posts.push(request.url().split("?")[0]!));
      await page.goto(app.baseUrl);
      await page.getByLabel("Model").selectOption(FRAMES);
      const field = page.getByRole("group", { name: "First frame", exact: true });
      await field.locator('input[type="file"]').setInputFiles({ name: "bud.png", mimeType: "image/png", buffer: fixtures.image({ width: 800, height: 600 }) });
      await field.locator('[data-testid="upload-item"][data-status="done"]').waitFor({ timeout: 20_000 });
      expect(await field.getByTestId("upload-facts").textContent()).toMatch(/^800 × 600 px · \d+ KB$/);
      const id = await page.locator('input[type="hidden"][name="input.first_frame_url"]').inputValue();
      expect(id).toMatch(/^upl_[a-z0-9]{24}$/);

      // Asked how to send it, posted to the bucket, finalized: never through POST /api/uploads.
      expect(posts).toEqual([`${app.baseUrl}/api/uploads/presign`, `${bucket.url}`, `${app.baseUrl}/api/uploads/finalize`]);
      expect(await prisma.upload.findUniqueOrThrow({ where: { id } })).toMatchObject({ width: 800, height: 600, storageKey: `uploads/${id}` });
      const keys = await uploadKeys();
      expect(keys).toContain(`uploads/${id}`);
      expect(keys.filter((key) => key.startsWith("uploads/incoming/"))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

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

// A ticket while the posted file still waits in the bucket under uploads/incoming/: each case stops
// short of the owner's finalize, so the answer depends on the ticket's check, not on a file already gone.
describe("a finalize ticket", () => {
  test("finalized by another visitor before its owner: 404, no row for anyone, and the posted file still its owner's", async () => {
    const owner = app.visitor();
    const stranger = app.visitor();
    const bytes = fixtures.image({ width: 640, height: 480 });
    const { start, postStatus } = await presignAndPost(owner, bytes);
    expect(postStatus).toBe(204);
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
    const { start, postStatus } = await presignAndPost(owner, fixtures.image({ width: 640, height: 480 }));
    expect(postStatus).toBe(204);
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
