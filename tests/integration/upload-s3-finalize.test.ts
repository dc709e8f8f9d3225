// Presigned uploads to an S3 bucket (s3rver, in this process) that a client
// abuses: the form is valid for minutes and can be posted again, and finalize
// can be called twice at once; the row and the stored file must still be the
// same bytes. Presigning counts against the upload rate and quotas, as a
// streamed upload does. One proxy in front (TRUSTED_PROXY_HOPS=1): the
// X-Forwarded-For a test sends is the client's address.
import { createHash } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { startS3Bucket } from "../support/s3-bucket";
import type { PresignAnswer, Visitor } from "../support/uploads";

const BUCKET = "framehook-finalize";
const bucket = await startS3Bucket({ name: BUCKET });
const QUOTA = 200_000;
const RATE = 12;
const app = await startApp({
  env: { ...bucket.env, UPLOAD_QUOTA_BYTES: String(QUOTA), UPLOAD_RATE_LIMIT: String(RATE), UPLOAD_RATE_WINDOW_SECONDS: "3600", TRUSTED_PROXY_HOPS: "1" },
});
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await bucket.close();
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const TRIES = 6;
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

async function presign(visitor: Visitor, { size, address }: { size?: number; address?: string } = {}) {
  const response = await visitor("/api/uploads/presign", {
    method: "POST",
    json: { model: FRAMES, field: "first_frame_url", ...(size === undefined ? {} : { size }) },
    headers: address ? { "X-Forwarded-For": address } : {},
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as PresignAnswer & { error?: { code: string; fields?: Record<string, string[]> } } };
}

/** Posts `bytes` with the presigned form, as a browser would; resolves with the bucket's status. */
async function post(start: PresignAnswer, bytes: Buffer): Promise<number> {
  const form = new FormData();
  for (const [name, value] of Object.entries(start.fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "frame.png");
  const response = await fetch(start.url, { method: "POST", body: form });
  await response.arrayBuffer();
  return response.status;
}

const finalize = async (visitor: Visitor, start: PresignAnswer) => (await visitor(start.finalize.url, { method: "POST", json: { token: start.finalize.token } })).status;

describe("finalize", () => {
  test(`a form posted twice, each post finalized at once: one upload, and its row describes the stored file (${TRIES} tries)`, async () => {
    for (let i = 0; i < TRIES; i++) {
      const visitor = app.visitor();
      const { body: start } = await presign(visitor);
      expect(await post(start, fixtures.image({ width: 640, height: 480 }))).toBe(204);
      // While the first finalize reads the first file, the form is posted again with another, and finalized again.
      const statuses = await Promise.all([
        finalize(visitor, start),
        (async () => {
          expect(await post(start, fixtures.image({ width: 800, height: 600 }))).toBe(204);
          return finalize(visitor, start);
        })(),
      ]);
      console.log(`[upload-s3-finalize] try ${i}: finalize answered ${statuses.join(" and ")}`);
      // 201 created; 200 the same upload, finalized already; 409 while the other was reading.
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      for (const status of statuses) expect([200, 201, 409]).toContain(status);
      const rows = await prisma.upload.findMany({ where: { id: start.id } });
      expect(rows).toHaveLength(1);
      const stored = Buffer.from(await (await fetch(`${bucket.url}/${rows[0]!.storageKey}`)).arrayBuffer());
      expect({ size: stored.length, sha256: sha256(stored) }, `try ${i}: ${statuses.join(", ")}`).toEqual({ size: rows[0]!.size, sha256: rows[0]!.sha256 });
    }
    expect(await prisma.uploadReservation.count()).toBe(0);
  }, 120_000);
});

describe("presign", () => {
  test(`counts against the upload rate: past ${RATE} from one address in a window → 429 with Retry-After; another address is unaffected`, async () => {
    const address = "203.0.113.77";
    const statuses: number[] = [];
    for (let i = 0; i < RATE; i++) statuses.push((await presign(app.visitor(), { address })).status);
    expect(statuses).toEqual(Array(RATE).fill(200));
    const limited = await presign(app.visitor(), { address });
    expect(limited.status).toBe(429);
    expect(limited.body.error?.code).toBe("rate_limited");
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect((await presign(app.visitor(), { address: "203.0.113.78" })).status).toBe(200);
  });

  test("counts against the quota: a size past the room left is refused on the field before any form is signed", async () => {
    const visitor = app.visitor();
    const refused = await presign(visitor, { size: QUOTA + 1, address: "198.51.100.90" });
    expect(refused.status).toBe(413);
    expect(refused.body.error?.code).toBe("upload_quota");
    expect(refused.body.error?.fields?.first_frame_url?.[0]).toMatch(/each visitor may keep/);
    expect(refused.body.fields).toBeUndefined();
    expect((await presign(visitor, { size: 1000, address: "198.51.100.90" })).status).toBe(200);
  });
});
