// The upload quotas under concurrency, through POST /api/uploads on the real
// app: one visitor's 20 parallel uploads store no more than their quota; one
// address with many fresh cookies holds at most 3 × the visitor quota (the
// default) and another address is unaffected; uploads per address are rate
// limited; and everyone's unused uploads have a bound. One proxy in front
// (TRUSTED_PROXY_HOPS=1): the X-Forwarded-For a test sends is the client's address.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import type { Visitor } from "../support/uploads";

// This file's media directory (tests/support/file-database.ts): its apps store uploads and copies there.
const MEDIA_DIR = process.env.MEDIA_LOCAL_DIR!;
const QUOTA = 100_000;
const TOTAL = 2_000_000;
const RATE = 40;
const app = await startApp({
  env: {
    UPLOAD_QUOTA_BYTES: String(QUOTA),
    UPLOAD_UNUSED_TOTAL_BYTES: String(TOTAL),
    UPLOAD_RATE_LIMIT: String(RATE),
    UPLOAD_RATE_WINDOW_SECONDS: "3600",
    TRUSTED_PROXY_HOPS: "1",
  },
});
const { prisma } = await import("@/lib/db");
const { addressKey } = await import("@/lib/rate-limit");

afterAll(async () => {
  await app.close();
});

const FRAMES = "alpha-2.5-first-last-frame-480p";
const frame = fixtures.image({ width: 640, height: 480 });

type Answer = { status: number; retryAfter: string | null; body: { id?: string; error?: { code: string; message: string; fields?: Record<string, string[]> } } };

/** One upload of `bytes` as `visitor`, from `address` (or the loopback address the socket has). */
async function send(visitor: Visitor, bytes: Buffer, { address }: { address?: string } = {}): Promise<Answer> {
  await visitor.ownerId(); // this path skips proxy.ts, which issues the cookie: a client has one from an earlier request
  const response = await visitor(`/api/uploads?model=${FRAMES}&field=first_frame_url`, {
    method: "POST",
    headers: { "Content-Type": "image/png", ...(address ? { "X-Forwarded-For": address } : {}) },
    body: new Uint8Array(bytes),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as Answer["body"] };
}

const storedBy = async (where: { ownerId?: string; clientKey?: string }) => {
  const sum = await prisma.upload.aggregate({ where, _sum: { size: true }, _count: true });
  return { bytes: sum._sum.size ?? 0, files: sum._count };
};
const storedFiles = () => (fs.existsSync(path.join(MEDIA_DIR, "uploads")) ? fs.readdirSync(path.join(MEDIA_DIR, "uploads")).length : 0);

describe("the visitor quota", () => {
  test("20 parallel uploads from one cookie store no more than UPLOAD_QUOTA_BYTES; the rest are refused upload_quota, their room given back", async () => {
    const visitor = app.visitor();
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(visitor, frame)));
    const stored = await storedBy({ ownerId: await visitor.ownerId() });
    console.log(`[upload-quotas] 20 parallel uploads of ${frame.length} bytes, quota ${QUOTA}: ${stored.files} stored, ${stored.bytes} bytes`);
    expect(stored.bytes).toBeLessThanOrEqual(QUOTA);
    expect(stored.files).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(stored.files);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(413);
      expect(refused.body.error?.code).toBe("upload_quota");
      expect(refused.body.error?.fields?.first_frame_url).toEqual([refused.body.error?.message]);
    }
    expect(await prisma.uploadReservation.count()).toBe(0);
  }, 120_000);
});

describe("the address quota", () => {
  test("fresh cookies from one address hold at most 3 × UPLOAD_QUOTA_BYTES together; another address is unaffected", async () => {
    const address = "198.51.100.7";
    const answers: Answer[] = [];
    // Each upload a new visitor (no cookie kept), ten at a time.
    for (let round = 0; round < 3; round++) answers.push(...(await Promise.all(Array.from({ length: 10 }, () => send(app.visitor(), frame, { address })))));
    const stored = await storedBy({ clientKey: addressKey(address) });
    console.log(`[upload-quotas] 30 fresh cookies from one address, address quota ${3 * QUOTA}: ${stored.files} stored, ${stored.bytes} bytes`);
    expect(stored.bytes).toBeLessThanOrEqual(3 * QUOTA);
    // Each visitor held one file, far under their own quota: the address is what refused.
    const refusals = answers.filter((a) => a.status !== 201);
    expect(refusals.length).toBeGreaterThan(0);
    for (const refused of refusals) {
      expect(refused.status).toBe(413);
      expect(refused.body.error).toMatchObject({ code: "address_upload_quota", message: expect.stringMatching(/^Uploads from your network take .* of the 293 KB they may keep together/) });
    }
    expect((await send(app.visitor(), frame, { address })).status).toBe(413);
    expect((await send(app.visitor(), frame, { address: "198.51.100.8" })).status).toBe(201);
  }, 120_000);
});

describe("the upload rate per address", () => {
  test(`an upload past ${RATE} from one address in a window → 429 with Retry-After, before its body is read; another address is unaffected`, async () => {
    const address = "203.0.113.40";
    const statuses: number[] = [];
    // Empty bodies: each is refused (422) after it was counted.
    for (let i = 0; i < RATE; i++) statuses.push((await send(app.visitor(), Buffer.alloc(0), { address })).status);
    expect(statuses).toEqual(Array(RATE).fill(422));
    const before = storedFiles();
    const limited = await send(app.visitor(), frame, { address });
    expect(limited.status).toBe(429);
    expect(limited.body.error?.code).toBe("rate_limited");
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(storedFiles()).toBe(before);
    expect((await send(app.visitor(), frame, { address: "203.0.113.41" })).status).toBe(201);
  }, 120_000);
});

describe("everyone's unused uploads", () => {
  test("past UPLOAD_UNUSED_TOTAL_BYTES a new upload is refused 503 upload_capacity with Retry-After; once uploads are used, there is room again", async () => {
    const unused = (await prisma.upload.aggregate({ where: { usedAt: null }, _sum: { size: true } }))._sum.size ?? 0;
    // Stands for many visitors' unused uploads: the room left is less than one more file.
    const filler = await prisma.upload.create({
      data: {
        id: "upl_filler000000000000000000",
        ownerId: "someone-else",
        model: FRAMES,
        field: "first_frame_url",
        format: "png",
        contentType: "image/png",
        size: TOTAL - unused - frame.length + 1,
        width: 640,
        height: 480,
        sha256: "0".repeat(64),
        storageKey: "uploads/upl_filler000000000000000000",
      },
    });
    const refused = await send(app.visitor(), frame, { address: "192.0.2.60" });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: "upload_capacity", message: expect.stringMatching(/as many unused uploads as it can/) });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    await prisma.upload.update({ where: { id: filler.id }, data: { usedAt: new Date() } });
    expect((await send(app.visitor(), frame, { address: "192.0.2.60" })).status).toBe(201);
    await prisma.upload.delete({ where: { id: filler.id } });
  }, 60_000);
});
