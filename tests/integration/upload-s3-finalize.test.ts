// Presigned uploads to an S3 bucket (s3rver, in this process) that a client
// abuses: the form is valid for minutes and can be posted again, and finalize
// can be called twice at once; the row and the stored file must still be the
// same bytes. Presigning counts against the upload rate and quotas, as a
// streamed upload does; and two uploads at once cannot both take the room
// one of them fits. TRUSTED_PROXY_HOPS=1: the
// X-Forwarded-For a test sends is the client's address.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { startS3Bucket } from "../support/s3-bucket";
import type { PresignAnswer, Visitor } from "../support/uploads";

const BUCKET = "framehook-finalize";
const bucket = await startS3Bucket({ name: BUCKET });
const gate = await startHoldingProxy(new URL(bucket.url).origin);
const QUOTA = 200_000;
const RATE = 12;
// The app talks to the bucket through the proxy (the presigned form's URL names it too).
const app = await startApp({
  env: {
    ...bucket.env,
    S3_ENDPOINT: gate.url,
    UPLOAD_QUOTA_BYTES: String(QUOTA),
    UPLOAD_RATE_LIMIT: String(RATE),
    UPLOAD_RATE_WINDOW_SECONDS: "3600",
    TRUSTED_PROXY_HOPS: "1",
  },
});
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => gate.server.close(resolve));
  await bucket.close();
});

/**
 * A pass-through HTTP proxy in front of the bucket that can hold one answer:
 * once armed for a path, the next GET of it is answered by the bucket at once,
 * but its answer (all of it, or its body after the headers) reaches the app
 * only when the test releases it. So a finalize can be made to read a file
 * the bucket no longer holds, while another one reads the next.
 */
type Hold = "answer" | "body";

async function startHoldingProxy(target: string) {
  let armed: { path: string; hold: Hold; held: (release: () => void) => void } | undefined;
  let puts: { prefix: string; releases: (() => void)[] } | undefined;
  const server = http.createServer((request, response) => {
    const upstream = http.request(new URL(request.url!, target), { method: request.method, headers: request.headers }, (answer) => {
      const body: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => body.push(chunk));
      answer.on("end", () => {
        const hold = armed && request.method === "GET" && request.url!.startsWith(armed.path) ? armed : undefined;
        if (hold) armed = undefined;
        if (hold?.hold === "body") response.writeHead(answer.statusCode!, answer.headers).flushHeaders();
        const send = () => {
          if (!response.headersSent) response.writeHead(answer.statusCode!, answer.headers);
          response.end(Buffer.concat(body));
        };
        if (puts && request.method === "PUT" && request.url!.startsWith(puts.prefix)) return void puts.releases.push(send);
        if (!hold) return send();
        hold.held(send);
      });
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Holds the next GET of `path`'s answer: resolves, with the function that lets it go on, once that GET was made. */
    holdNext: (path: string, hold: Hold) => new Promise<() => void>((held) => (armed = { path, hold, held })),
    /** Holds the answer of every PUT under `prefix` (the bucket has stored it; the app does not know yet) until `release`. */
    holdPuts(prefix: string) {
      const holding = { prefix, releases: [] as (() => void)[] };
      puts = holding;
      return {
        held: () => holding.releases.length,
        release: () => {
          puts = undefined;
          for (const send of holding.releases) send();
        },
      };
    },
  };
}

const FRAMES = "alpha-2.5-first-last-frame-480p";
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
  test.each([
    // The first finalize has not claimed the upload yet: the second stores its file, the first then finds it recorded.
    ["before the first finalize claimed the upload", "answer", [200, 201]],
    // The first finalize claimed it and is reading: the second is refused and touches nothing.
    ["while the first finalize reads it", "body", [201, 409]],
  ] as const)("a form posted again and finalized again %s: one upload, its row and stored file the same bytes", async (_when, hold, expected) => {
    const visitor = app.visitor();
    const { body: start } = await presign(visitor);
    expect(start.url.startsWith(gate.url)).toBe(true);
    expect(await post(start, fixtures.image({ width: 640, height: 480 }))).toBe(204);
    // The first finalize reads the first file; its answer is held at the proxy.
    const held = gate.holdNext(`/${BUCKET}/uploads/incoming/${start.id}`, hold);
    const first = finalize(visitor, start);
    const release = await held;
    if (hold === "body") await waitFor(() => prisma.uploadReservation.findUnique({ where: { id: start.id } }));
    // Meanwhile the form is posted again, with another file, and finalized again.
    expect(await post(start, fixtures.image({ width: 800, height: 600 }))).toBe(204);
    const second = await finalize(visitor, start);
    release();
    const statuses = [await first, second];
    console.log(`[upload-s3-finalize] first finalize ${statuses[0]}, second ${statuses[1]}`);
    // 201 created; 200 the same upload, finalized already; 409 while the other was reading.
    expect(statuses).toEqual(expected);
    const rows = await prisma.upload.findMany({ where: { id: start.id } });
    expect(rows).toHaveLength(1);
    const stored = Buffer.from(await (await fetch(`${bucket.url}/${rows[0]!.storageKey}`)).arrayBuffer());
    expect({ size: stored.length, sha256: sha256(stored) }).toEqual({ size: rows[0]!.size, sha256: rows[0]!.sha256 });
    expect(await prisma.uploadReservation.count()).toBe(0);
  }, 60_000);
});

describe("the visitor quota on S3 storage", () => {
  test("two uploads at once that fit the quota one at a time, both held at the bucket once stored there: one kept, the other refused", async () => {
    const visitor = app.visitor();
    await visitor.ownerId(); // this path skips proxy.ts, which issues the cookie
    const file = fixtures.image({ width: 350, height: 350, noise: true });
    expect(file.length).toBeLessThan(QUOTA);
    expect(2 * file.length).toBeGreaterThan(QUOTA);
    // An upload's object reaches the bucket after its checks and before its row: the bucket's answer waits.
    const puts = gate.holdPuts(`/${BUCKET}/uploads/upl_`);
    let answered = 0;
    const uploads = Array.from({ length: 2 }, async () => {
      const response = await visitor(`/api/uploads?model=${FRAMES}&field=first_frame_url`, { method: "POST", headers: { "Content-Type": "image/png" }, body: new Uint8Array(file) });
      answered++;
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    });
    // Each one either got as far as storing its object, or was answered without.
    await waitFor(() => puts.held() + answered >= 2, 60_000);
    puts.release();
    const answers = await Promise.all(uploads);
    const stored = await prisma.upload.aggregate({ where: { ownerId: await visitor.ownerId() }, _sum: { size: true }, _count: true });
    console.log(`[upload-s3-finalize] two uploads of ${file.length} bytes at once, quota ${QUOTA}: ${answers.map((a) => a.status).join(" and ")}, ${stored._count} stored, ${stored._sum.size ?? 0} bytes`);
    expect(stored._sum.size ?? 0).toBeLessThanOrEqual(QUOTA);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 413]);
    expect(answers.find((a) => a.status === 413)?.body.error?.code).toBe("upload_quota");
  }, 90_000);
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
