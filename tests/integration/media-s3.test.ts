// The S3 backend against a real S3-compatible server (s3rver, in this
// process, on loopback): copies stream into the bucket (in several parts when
// large), the app redirects to a presigned URL, and a cut download leaves no
// object behind.
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitAndCopy } from "../support/media-copies";
import { startS3Bucket } from "../support/s3-bucket";
import type { Scenario } from "../support/simulator-control";
import { generatedByte } from "@/simulator/media";

const BUCKET = "framehook-media";
const bucket = await startS3Bucket({ name: BUCKET });
// Every request the bucket receives, to see the multipart upload happen.
const s3Requests: string[] = [];
bucket.server.httpServer.on("request", (req: IncomingMessage) => s3Requests.push(`${req.method} ${req.url}`));

const app = await startApp({ env: { ...bucket.env, MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "3" } });
const { S3_PART_SIZE } = await import("@/lib/storage/s3-storage");

afterAll(async () => {
  await app.close();
  await bucket.close();
});
beforeAll(() => app.simulator.reset(1000));

const copied = (label: string, media: Scenario["media"]) => submitAndCopy(app, { label, prompt: "glacier", media });

/** GET /api/media/{id} answers a redirect to the bucket; this follows it. */
async function fetchStored(copyId: string, headers: Record<string, string> = {}) {
  const redirect = await app.fetch(`/api/media/${copyId}`, { redirect: "manual" });
  expect(redirect.status).toBe(302);
  const location = redirect.headers.get("location")!;
  expect(location).toContain(`/${BUCKET}/generations/`);
  expect(location).toContain("X-Amz-Signature=");
  return fetch(location, { headers });
}

test("a clip is copied into the bucket and served through a presigned URL, ranges included", async () => {
  const { row } = await copied("s3-small", undefined);
  expect(row).toMatchObject({ state: "DONE", attempts: 1, contentType: "video/mp4" });
  const whole = await fetchStored(row.id);
  expect(whole.status).toBe(200);
  const bytes = Buffer.from(await whole.arrayBuffer());
  expect(bytes.length).toBe(row.size);
  expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
  const part = await fetchStored(row.id, { Range: "bytes=0-99" });
  expect(part.status).toBe(206);
  expect((await part.arrayBuffer()).byteLength).toBe(100);
});

test("another visitor's stored copy is a 404, with no presigned URL handed out", async () => {
  const { row } = await copied("s3-owned", undefined);
  expect((await app.fetch(`/api/media/${row.id}`, { redirect: "manual" })).status).toBe(302);
  const answer = await app.visitor()(`/api/media/${row.id}`, { redirect: "manual" });
  expect(answer.status).toBe(404);
  expect(answer.headers.get("location")).toBeNull();
  expect(await answer.text()).not.toContain("X-Amz-Signature");
});

test("the clip's still goes into the bucket beside it and is served through a presigned URL", async () => {
  const { row } = await copied("s3-still", undefined);
  expect(row).toMatchObject({ state: "DONE", stillKey: `${row.storageKey}-still` });
  const redirect = await app.fetch(`/api/media/${row.id}/still`, { redirect: "manual" });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get("location")).toContain(`/${BUCKET}/${row.storageKey}-still`);
  const still = Buffer.from(await (await fetch(redirect.headers.get("location")!)).arrayBuffer());
  expect([still[0], still[1]]).toEqual([0xff, 0xd8]);
  expect((await app.visitor()(`/api/media/${row.id}/still`, { redirect: "manual" })).status).toBe(404);
});

test("a file larger than one part goes up as a multipart upload, byte for byte", async () => {
  const size = 2 * S3_PART_SIZE + 123_457;
  s3Requests.length = 0;
  const { row } = await copied("s3-multipart", { sizeBytes: size });
  expect(row).toMatchObject({ state: "DONE", attempts: 1, size });
  const parts = s3Requests.filter((r) => /^PUT .*partNumber=\d+/.test(r));
  expect(parts).toHaveLength(3);
  const bytes = Buffer.from(await (await fetchStored(row.id)).arrayBuffer());
  expect(bytes.length).toBe(size);
  for (const i of [0, 1, S3_PART_SIZE - 1, S3_PART_SIZE, size - 1]) expect(bytes[i]).toBe(generatedByte(i));
});

test("a large download cut mid-way leaves no object; the retry stores the whole file", async () => {
  const size = 2 * S3_PART_SIZE;
  const { row } = await copied("s3-cut", { sizeBytes: size, truncateAfterBytes: S3_PART_SIZE + 1000, failTimes: 1 });
  expect(row).toMatchObject({ state: "DONE", attempts: 2, size });
  expect(Buffer.from(await (await fetchStored(row.id)).arrayBuffer()).length).toBe(size);
});

test("a download cut every time ends FAILED with no object in the bucket", async () => {
  const { row } = await copied("s3-always-cut", { sizeBytes: 2 * S3_PART_SIZE, truncateAfterBytes: S3_PART_SIZE + 1000 });
  expect(row).toMatchObject({ state: "FAILED", attempts: 3 });
  const head = await fetch(`${bucket.url}/${row.storageKey}`, { method: "HEAD" });
  expect(head.status).toBe(404);
  expect((await app.fetch(`/api/media/${row.id}`, { redirect: "manual" })).status).toBe(404);
});

test("a shared video is served to anyone with the link by a one-minute presigned redirect, never cached, and stops at once when unshared", async () => {
  const { id, row } = await copied("s3-share", undefined);
  const shared = await app.fetch(`/api/generations/${id}/share`, { method: "POST" });
  expect(shared.status).toBe(200);
  const page = new URL(((await shared.json()) as { url: string }).url).pathname;
  // The size previews state was read from the bucket's copy.
  const { prisma } = await import("@/lib/db");
  expect(await prisma.mediaCopy.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ width: expect.any(Number), height: expect.any(Number) });

  // No cookie: a stranger holding the link.
  const redirect = await fetch(new URL(`${page}/video`, app.baseUrl), { redirect: "manual" });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get("cache-control")).toBe("no-store");
  const location = redirect.headers.get("location")!;
  expect(location).toContain(`/${BUCKET}/${row.storageKey}?`);
  expect(new URL(location).searchParams.get("X-Amz-Expires")).toBe("60");
  const part = await fetch(location, { headers: { Range: "bytes=0-99" } });
  expect(part.status).toBe(206);
  expect((await part.arrayBuffer()).byteLength).toBe(100);
  const still = await fetch(new URL(`${page}/still`, app.baseUrl), { redirect: "manual" });
  expect(still.status).toBe(302);
  expect(new URL(still.headers.get("location")!).searchParams.get("X-Amz-Expires")).toBe("60");

  expect((await app.fetch(`/api/generations/${id}/share`, { method: "DELETE" })).status).toBe(204);
  expect((await fetch(new URL(`${page}/video`, app.baseUrl), { redirect: "manual" })).status).toBe(404);
});
