// The per-visitor submission limit (kept in the database) and the optional
// access gate of deployed instances.
import http from "node:http";
import { Socket } from "node:net";
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { stampPeerAddress } from "@/lib/viewer/peer-address";
import { startApp } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

// An hour's window: a test's few seconds almost never straddle two fixed windows.
const app = await startApp({ env: { SUBMIT_RATE_LIMIT: "3", SUBMIT_RATE_WINDOW_SECONDS: "3600", APP_PASSWORD: "correct horse battery" } });
const { prisma } = await import("@/lib/db");
const { hitRateLimit, visitorKey } = await import("@/lib/rate-limit");
const { submitGeneration } = await import("@/lib/generations/submit");

const PASSWORD = "correct horse battery";
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
/** Past the access gate, as a tester with the password is. */
const gate = { Authorization: basic("qa", PASSWORD) };

afterAll(() => app.close());
// Every submission here comes from 127.0.0.1, one visitor: each test (and its
// retry on CI) starts with that visitor's window empty.
beforeEach(() => prisma.rateLimit.deleteMany({ where: { key: { startsWith: "submit:" } } }));

describe("submission rate limit", () => {
  test("the fourth submission in a window → 429 with Retry-After; nothing stored or sent", async () => {
    const marker = uniqueMarker("flood");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await submitPrompt(app, `wave ${i} ${marker}`, {}, { ...gate, "X-Forwarded-For": "203.0.113.9" })).status);
    expect(statuses).toEqual([201, 201, 201]);
    const fourth = await submitPrompt(app, `wave 3 ${marker}`, {}, { ...gate, "X-Forwarded-For": "203.0.113.9" });
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await prisma.generation.count({ where: { prompt: { contains: marker } } })).toBe(3);
    expect((await app.simulator.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(3);
  });

  test("a spoofed X-Forwarded-For does not make a new visitor: the socket's address is the key", async () => {
    const marker = uniqueMarker("spoof");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await submitPrompt(app, `spoof ${i} ${marker}`, {}, { ...gate, "X-Forwarded-For": `10.9.8.${i}` })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
    expect((await app.simulator.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(3);
  });

  test("an IPv6 client taking an address of a new /64 of its /48 for each submission is one visitor: the fourth → rate_limited", async () => {
    const marker = uniqueMarker("v6");
    /** The headers a route sees for a request whose socket came from `peer`, as under `next start`. */
    const from = (peer: string) => {
      const request = new http.IncomingMessage(new Socket());
      Object.defineProperty(request.socket, "remoteAddress", { value: peer });
      stampPeerAddress(request);
      return new Headers(request.headers as Record<string, string>);
    };
    const outcomes: string[] = [];
    for (let i = 1; i <= 4; i++) {
      // A routed /48 holds 65,536 /64s: each submission from another one.
      const visitor = visitorKey(from(`2001:db8:77:${i.toString(16)}:${i.toString(16)}::${i}`));
      const submission = submitGeneration({
        body: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `v6 ${i} ${marker}`, duration: 2 } },
        visitor,
        viewer: { id: `${marker}-${i}` },
      });
      outcomes.push(await submission.then(({ generation }) => generation.state, (error: { code: string }) => error.code));
    }
    expect(outcomes).toEqual(["PENDING", "PENDING", "PENDING", "rate_limited"]);
    // The next /48 is another visitor.
    expect(visitorKey(from("2001:db8:78::1"))).not.toBe(visitorKey(from("2001:db8:77:1::1")));
    expect((await app.simulator.requests(marker)).filter((r) => r.method === "POST")).toHaveLength(3);
  });

  test("windows of visitors long gone are pruned", async () => {
    const stale = `test:${uniqueMarker("gone")}`;
    await prisma.rateLimit.create({ data: { key: stale, windowStart: new Date(Date.now() - 2 * 86_400_000), count: 1 } });
    await hitRateLimit({ key: `test:${uniqueMarker("new")}`, limit: 3, windowSeconds: 60 });
    expect(await prisma.rateLimit.findUnique({ where: { key: stale } })).toBeNull();
  });

  test("the counter resets in the next window and is shared by concurrent hits", async () => {
    const key = `test:${uniqueMarker("window")}`;
    const now = Date.UTC(2026, 0, 1, 0, 0, 30);
    const hits = await Promise.all(Array.from({ length: 5 }, () => hitRateLimit({ key, limit: 3, windowSeconds: 60, now })));
    expect(hits.filter((h) => h.allowed)).toHaveLength(3);
    expect(hits.find((h) => !h.allowed)).toMatchObject({ allowed: false, retryAfterSeconds: 30 });
    expect(await hitRateLimit({ key, limit: 3, windowSeconds: 60, now: now + 60_000 })).toEqual({ allowed: true, count: 1 });
    expect(await prisma.rateLimit.findUniqueOrThrow({ where: { key } })).toMatchObject({ count: 1 });
  });
});

describe("access gate (APP_PASSWORD), in front of the real server", () => {
  // A fresh visitor per request: the gate comes before any cookie.
  const request = (path: string, authorization?: string) => app.visitor()(path, { headers: authorization ? { authorization } : {} });
  const challenged = (response: Response) => response.status === 401 && /^Basic realm="Framehook"/.test(response.headers.get("www-authenticate") ?? "");

  test.each([
    ["no credentials", "/", undefined],
    ["a wrong password", "/", basic("qa", "wrong horse battery")],
    ["the password in another case", "/api/generations", basic("qa", "CORRECT HORSE BATTERY")],
    ["a bearer token", "/api/credits", "Bearer correct horse battery"],
  ])("%s → 401 with a Basic challenge", async (_name, path, authorization) => {
    expect(challenged(await request(path, authorization))).toBe(true);
  });

  test("the right password (any user name) passes: the page and the API answer", async () => {
    const page = await request("/", basic("anyone", PASSWORD));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
    expect((await request("/api/generations", basic("anyone", PASSWORD))).status).toBe(200);
  });

  test.each([
    ["/api/webhooks/gateway", 405],
    ["/api/health", 200],
    ["/api/ping", 200],
    ["/api/cron/reconcile", 401],
  ])("%s passes the gate on its own credentials (→ %i from the route itself)", async (path, status) => {
    const response = await request(path);
    expect(response.status).toBe(status);
    expect(challenged(response)).toBe(false);
  });
});
