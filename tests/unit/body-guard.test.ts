// lib/http/body-guard.ts on a plain node:http server (as instrumentation.ts
// installs it under `next start`; tests/e2e/request-bodies.spec.ts runs it
// there): the limit each path takes, and a declared size over it refused
// before the handler, or anything, reads the body.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, test } from "vitest";
import { bodyLimitFor, BODY_MAX_BYTES, CALLBACK_MAX_BYTES, installBodyGuard, JSON_BODY_MAX_BYTES, UPLOAD_MAX_BYTES } from "@/lib/http/body-guard";

installBodyGuard();
let handled = 0;
const server = http.createServer(async (request, response) => {
  handled++;
  let size = 0;
  for await (const chunk of request) size += (chunk as Buffer).length;
  response.end(JSON.stringify({ size }));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise((resolve) => server.close(resolve)));

test.each([
  ["/api/webhooks/gateway", CALLBACK_MAX_BYTES],
  ["/api/generations", JSON_BODY_MAX_BYTES],
  ["/", BODY_MAX_BYTES],
  ["/generations/abc", BODY_MAX_BYTES],
  ["/api/generations/abc", BODY_MAX_BYTES],
])("%s takes bodies of up to %d bytes", (pathname, limit) => {
  expect(bodyLimitFor(pathname)).toBe(limit);
});

/** POST with only the headers sent: the body is declared, never written. */
function declare(target: string, size: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(target, origin), { method: "POST", headers: { "Content-Type": "application/json", "Content-Length": size } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
    });
    request.on("error", reject);
    request.flushHeaders();
  });
}

test.each([
  ["/api/webhooks/gateway?token=t", CALLBACK_MAX_BYTES],
  ["/api/generations", JSON_BODY_MAX_BYTES],
  ["/", BODY_MAX_BYTES],
])("POST %s: a body declared one byte over the limit is 413 before anything reads it; the limit itself is read", async (target, limit) => {
  const before = handled;
  expect(await declare(target, limit + 1)).toEqual({ status: 413, body: { error: { code: "payload_too_large", message: `The body is larger than ${limit} bytes.` } } });
  expect(handled).toBe(before);
  const at = await fetch(new URL(target, origin), { method: "POST", body: Buffer.alloc(limit, " ") });
  expect(await at.json()).toEqual({ size: limit });
  expect(handled).toBe(before + 1);
});

test("POST /api/uploads: a body declared over its model field's limit is 413 with the field's words, unread; the largest field's limit for a query naming none", async () => {
  const before = handled;
  const frame = "/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url";
  expect(await declare(frame, 10 * 1024 * 1024 + 1)).toEqual({
    status: 413,
    body: {
      error: {
        code: "payload_too_large",
        message: "This file is 10.0 MB; Alpha 2.5 first & last frame · 480p takes up to 10 MB.",
        fields: { first_frame_url: ["This file is 10.0 MB; Alpha 2.5 first & last frame · 480p takes up to 10 MB."] },
      },
    },
  });
  expect(await declare("/api/uploads?model=nope", UPLOAD_MAX_BYTES + 1)).toMatchObject({ status: 413, body: { error: { code: "payload_too_large" } } });
  expect(handled).toBe(before);
  // Within the field's limit, the route reads it.
  const within = await fetch(new URL(frame, origin), { method: "POST", body: Buffer.alloc(1000) });
  expect(await within.json()).toEqual({ size: 1000 });
});
