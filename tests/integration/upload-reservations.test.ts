// The upload store's reservations, on the real database of this run's engine:
// the claim of an upload id (one live reservation per id, an expired one taken
// over, a recorded id never reserved again), the three quotas checked in one
// statement under concurrency, and a record that gives its reservation up in
// the statement that reads it. What HTTP shows of these is in upload-quotas;
// here the rows are checked as the store leaves them, with duplicates,
// concurrency and reordering.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { AppError } from "@/lib/errors";
import { startApp } from "../support/app";

const QUOTA = 100_000;
const ADDRESS_QUOTA = 250_000;
const TOTAL = 10_000_000;
const app = await startApp({
  env: { UPLOAD_QUOTA_BYTES: String(QUOTA), UPLOAD_ADDRESS_QUOTA_BYTES: String(ADDRESS_QUOTA), UPLOAD_UNUSED_TOTAL_BYTES: String(TOTAL) },
});
const { prisma } = await import("@/lib/db");
const { newUploadId, recordUpload, reserveUpload, UploadInProgressError } = await import("@/lib/uploads/upload-store");
const { RESERVATION_MS } = await import("@/lib/uploads/upload-quota");

afterAll(() => app.close());

const owner = () => `owner-${randomUUID()}`;
const client = () => `client-${randomUUID()}`;
const refusalOf = (result: PromiseSettledResult<unknown>) => {
  if (result.status === "fulfilled") return "granted";
  const error = result.reason as unknown;
  if (error instanceof UploadInProgressError) return "in progress";
  if (error instanceof AppError) return error.code;
  throw error;
};
const reservationsOf = (where: { ownerId?: string; clientKey?: string }) => prisma.uploadReservation.findMany({ where });

/** A recorded upload's row for `id`, as the receiver writes it. */
const uploadRow = (id: string, ownerId: string, size: number, clientKey: string | null = null) => ({
  id,
  ownerId,
  clientKey,
  model: "alpha-2.5-first-last-frame-480p",
  field: "first_frame_url",
  format: "png",
  contentType: "image/png",
  size,
  width: 640,
  height: 480,
  sha256: "0".repeat(64),
  storageKey: `uploads/${id}`,
});

describe("the claim of an upload id", () => {
  test("10 reservations of one id at once: one is granted, the other 9 are told it is being received; one row", async () => {
    const id = newUploadId();
    const ownerId = owner();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => reserveUpload({ id, ownerId, clientKey: null, bytes: 1_000, maxBytes: 50_000 })));
    expect(results.map(refusalOf).sort()).toEqual(["granted", ...Array(9).fill("in progress")]);
    expect(await reservationsOf({ ownerId })).toMatchObject([{ id, bytes: 1_000 }]);
  });

  test("a reservation left past its expiry (a process that died mid-upload) is taken over, with the new size and expiry", async () => {
    const id = newUploadId();
    const ownerId = owner();
    const long = Date.now() - 2 * RESERVATION_MS;
    await reserveUpload({ id, ownerId, clientKey: null, bytes: 40_000, maxBytes: 50_000, now: long });
    const now = Date.now();
    expect(await reserveUpload({ id, ownerId, clientKey: null, bytes: 2_000, maxBytes: 50_000, now })).toBe(2_000);
    const [row] = await reservationsOf({ ownerId });
    expect(row).toMatchObject({ id, bytes: 2_000 });
    expect(row!.expiresAt.getTime()).toBe(now + RESERVATION_MS);
  });

  test("a live reservation is not taken over, whoever asks: its owner, size and expiry stay", async () => {
    const id = newUploadId();
    const [first, second] = [owner(), owner()];
    await reserveUpload({ id, ownerId: first, clientKey: null, bytes: 3_000, maxBytes: 50_000 });
    const before = await reservationsOf({});
    await expect(reserveUpload({ id, ownerId: second, clientKey: null, bytes: 1, maxBytes: 50_000 })).rejects.toBeInstanceOf(UploadInProgressError);
    expect((await reservationsOf({})).find((r) => r.id === id)).toEqual(before.find((r) => r.id === id));
  });

  test("an id recorded already is never reserved again, and no reservation is left for it", async () => {
    const id = newUploadId();
    const ownerId = owner();
    await reserveUpload({ id, ownerId, clientKey: null, bytes: 5_000, maxBytes: 50_000 });
    await recordUpload({ data: uploadRow(id, ownerId, 5_000) });
    await expect(reserveUpload({ id, ownerId, clientKey: null, bytes: 5_000, maxBytes: 50_000 })).rejects.toThrow(/recorded already/);
    expect(await reservationsOf({ ownerId })).toEqual([]);
    expect(await prisma.upload.count({ where: { id } })).toBe(1);
  });
});

describe("the quotas, checked in one statement", () => {
  test("20 reservations at once by one owner hold no more than its quota, however they interleave", async () => {
    const ownerId = owner();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => reserveUpload({ id: newUploadId(), ownerId, clientKey: null, bytes: 30_000, maxBytes: 50_000 })),
    );
    const outcomes = results.map(refusalOf);
    expect(outcomes.filter((o) => o === "granted")).toHaveLength(3);
    expect(outcomes.filter((o) => o === "upload_quota")).toHaveLength(17);
    const held = (await reservationsOf({ ownerId })).reduce((sum, r) => sum + r.bytes, 0);
    expect(held).toBe(90_000);
  });

  test("20 owners at one address at once hold no more than the address's quota together, uploads and reservations counted", async () => {
    const clientKey = client();
    const recorded = owner();
    // 50,000 bytes kept already by one of the address's owners.
    const kept = newUploadId();
    await reserveUpload({ id: kept, ownerId: recorded, clientKey, bytes: 50_000, maxBytes: 50_000 });
    await recordUpload({ data: uploadRow(kept, recorded, 50_000, clientKey) });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => reserveUpload({ id: newUploadId(), ownerId: owner(), clientKey, bytes: 45_000, maxBytes: 50_000 })),
    );
    const outcomes = results.map(refusalOf);
    // (250,000 − 50,000) / 45,000: 4 fit.
    expect(outcomes.filter((o) => o === "granted")).toHaveLength(4);
    expect(outcomes.filter((o) => o === "address_upload_quota")).toHaveLength(16);
    const held = (await reservationsOf({ clientKey })).reduce((sum, r) => sum + r.bytes, 0);
    expect(held).toBe(180_000);
  });

  test("a body of unknown size is granted the room left in the tightest quota, and nothing once that is gone", async () => {
    const clientKey = client();
    const ownerId = owner();
    for (const bytes of [QUOTA, QUOTA, 30_000]) await reserveUpload({ id: newUploadId(), ownerId: owner(), clientKey, bytes, maxBytes: QUOTA });
    // The address has 20,000 left; the owner 100,000; the field takes 50,000.
    expect(await reserveUpload({ id: newUploadId(), ownerId, clientKey, bytes: null, maxBytes: 50_000 })).toBe(20_000);
    await expect(reserveUpload({ id: newUploadId(), ownerId, clientKey, bytes: null, maxBytes: 50_000 })).rejects.toMatchObject({ code: "address_upload_quota" });
  });
});

describe("a record in place of its reservation", () => {
  test("a file that grew past its live reservation is checked again for its whole size: refused past the quota, the reservation given up, nothing recorded", async () => {
    const ownerId = owner();
    await reserveUpload({ id: newUploadId(), ownerId, clientKey: null, bytes: 70_000, maxBytes: 100_000 });
    const id = newUploadId();
    await reserveUpload({ id, ownerId, clientKey: null, bytes: 20_000, maxBytes: 100_000 });
    await expect(recordUpload({ data: uploadRow(id, ownerId, 40_000) })).rejects.toMatchObject({ code: "upload_quota" });
    expect(await prisma.upload.count({ where: { id } })).toBe(0);
    // The refusal rolled the whole record back: the reservation is still there, for the receiver to release.
    expect(await reservationsOf({ ownerId })).toHaveLength(2);
  });

  test("a file within its live reservation is recorded without a second check, even when the quota is full meanwhile", async () => {
    const ownerId = owner();
    const id = newUploadId();
    await reserveUpload({ id, ownerId, clientKey: null, bytes: 60_000, maxBytes: 100_000 });
    await reserveUpload({ id: newUploadId(), ownerId, clientKey: null, bytes: 40_000, maxBytes: 100_000 });
    const row = await recordUpload({ data: uploadRow(id, ownerId, 59_000) });
    expect(row).toMatchObject({ id, size: 59_000 });
    expect((await reservationsOf({ ownerId })).map((r) => r.bytes)).toEqual([40_000]);
  });

  test("a file whose reservation expired is checked for its whole size: recorded when it fits", async () => {
    const ownerId = owner();
    const id = newUploadId();
    await reserveUpload({ id, ownerId, clientKey: null, bytes: 60_000, maxBytes: 100_000, now: Date.now() - 2 * RESERVATION_MS });
    await reserveUpload({ id: newUploadId(), ownerId, clientKey: null, bytes: 50_000, maxBytes: 100_000 });
    // 50,000 live + 60,000 would pass 100,000: the expired reservation holds nothing.
    await expect(recordUpload({ data: uploadRow(id, ownerId, 60_000) })).rejects.toMatchObject({ code: "upload_quota" });
    expect(await recordUpload({ data: uploadRow(id, ownerId, 45_000) })).toMatchObject({ id, size: 45_000 });
  });
});
