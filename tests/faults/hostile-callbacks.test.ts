// Property-based attacks on POST /api/webhooks/gateway: random methods,
// tokens, content types, headers, encodings, sizes and bodies. Whatever
// arrives: never a 500, and without a valid token for a known generation,
// not one row written.
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

const app = await startApp();
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

let victim: { id: string; taskId: string; token: string };
beforeAll(async () => {
  const marker = uniqueMarker("victim");
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const { body } = await submitPrompt(app, `victim ${marker}`);
  const id = body.id as string;
  victim = { id, taskId: body.taskId as string, token: callbackTokenFor(id, env.WEBHOOK_SECRET) };
});
afterAll(() => app.close());

const writes = async () => ({
  generations: await prisma.generation.findMany({ orderBy: { id: "asc" } }),
  deliveries: await prisma.delivery.count(),
});

const token = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 300 }),
  fc.stringMatching(/^[a-z0-9]{25}\.[A-Za-z0-9_-]{43}$/),
  // The victim's id with a forged MAC, or a MAC made with another secret.
  fc.string({ minLength: 1, maxLength: 60 }).map((mac) => () => `${victim.id}.${mac}`),
  fc.string({ minLength: 16, maxLength: 40 }).map((secret) => () => callbackTokenFor(victim.id, `${secret}-not-the-secret`)),
  // A valid token for a generation that does not exist.
  fc.stringMatching(/^c[a-z0-9]{24}$/).map((id) => () => callbackTokenFor(id, env.WEBHOOK_SECRET)),
);
const taskLike = fc.record(
  {
    taskId: fc.oneof(fc.string(), fc.constant("task_0"), fc.integer()),
    state: fc.constantFrom("SUCCESS", "FAILURE", "PENDING", "success", "DONE", "", null),
    resultUrls: fc.oneof(fc.array(fc.webUrl()), fc.array(fc.constantFrom("javascript:alert(1)", "data:,x")), fc.string()),
    creditsConsumed: fc.oneof(fc.double(), fc.string(), fc.constant(-1), fc.constant(1e308)),
    failMsg: fc.string(),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.string({ maxLength: 2_000 }).map((s) => Buffer.from(s)),
  fc.json().map((s) => Buffer.from(s)),
  taskLike.map((t) => Buffer.from(JSON.stringify(t))),
  taskLike.map((t) => Buffer.from(JSON.stringify({ code: 200, msg: "success", data: t }))),
  taskLike.map((t) => Buffer.from(JSON.stringify(t), "utf16le")),
  fc.uint8Array({ maxLength: 4_000 }).map((b) => Buffer.from(b)),
  fc.integer({ min: 60_000, max: 140_000 }).map((n) => Buffer.from(`{"taskId":"${"x".repeat(n)}"}`)),
);
const headerName = fc.stringMatching(/^x-[a-z0-9-]{1,20}$/);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,200}$/).map((v) => v.trim());
const request = fc.record({
  method: fc.oneof(
    { weight: 3, arbitrary: fc.constant("POST") },
    { weight: 1, arbitrary: fc.constantFrom("GET", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PURGE") },
  ),
  token,
  contentType: fc.option(
    fc.oneof(
      fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/vnd.api+json", "text/html"),
      headerValue,
    ),
  ),
  contentEncoding: fc.option(fc.constantFrom("gzip", "br", "deflate", "identity")),
  extra: fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
  body,
});

type Attempt = typeof request extends fc.Arbitrary<infer T> ? T : never;

async function send(attempt: Attempt, resolveToken: (t: Attempt["token"]) => string | null) {
  const tokenValue = resolveToken(attempt.token);
  const path = tokenValue === null ? "/api/webhooks/gateway" : `/api/webhooks/gateway?token=${encodeURIComponent(tokenValue)}`;
  const headers: Record<string, string> = { ...attempt.extra };
  if (attempt.contentType !== null) headers["Content-Type"] = attempt.contentType;
  if (attempt.contentEncoding !== null) headers["Content-Encoding"] = attempt.contentEncoding;
  const hasBody = !["GET", "HEAD"].includes(attempt.method);
  const response = await app.fetch(path, { method: attempt.method, headers, body: hasBody ? attempt.body : undefined });
  return { status: response.status, text: await response.text() };
}
const resolve = (t: Attempt["token"]) => (typeof t === "function" ? t() : t);

test("unauthenticated or unknown-task callbacks: never a 500, never a write (250 runs)", async () => {
  const before = await writes();
  const statuses: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(request, async (attempt) => {
      const { status } = await send(attempt, resolve);
      statuses[status] = (statuses[status] ?? 0) + 1;
      expect(status).toBeLessThan(500);
      if (attempt.method === "POST") expect([401, 404, 413, 415]).toContain(status);
      // A body over the route's limit is refused from its headers (413) before the method is looked at;
      // Next refuses a method HTTP does not define (PURGE) with 400 before any route runs.
      else if (attempt.method === "PURGE") expect([400, 405, 413]).toContain(status);
      else expect([405, 413]).toContain(status);
    }),
    { numRuns: 250 },
  );
  expect(await writes()).toEqual(before);
  console.info(`[faults] hostile callbacks, unauthenticated: ${JSON.stringify(statuses)}`);
});

test("authenticated callbacks with random bodies: never a 500, and the task the gateway still runs stays PENDING, uncharged (150 runs)", async () => {
  await fc.assert(
    fc.asyncProperty(request, async (attempt) => {
      const { status } = await send({ ...attempt, method: attempt.method === "PURGE" ? "POST" : attempt.method }, () => victim.token);
      expect(status).toBeLessThan(500);
      const row = await prisma.generation.findUniqueOrThrow({ where: { id: victim.id } });
      expect(row).toMatchObject({ state: "PENDING", creditsConsumed: null, taskId: victim.taskId });
    }),
    { numRuns: 150 },
  );
});
