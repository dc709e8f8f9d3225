// Request bodies on the real server (`next start`, the production build),
// over raw sockets, as a hostile or broken client sends them: a body declared
// too large is refused from its headers without being read, a body that
// trickles is cut in bounded time, and no log line holds a callback's token.
// API only (no browser). The app runs as an instance of its own, on the suite's
// build, database and simulator, so that this file can read its log; it writes
// nothing to the database.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { callbackTokenFor } from "../../lib/generations/callback-token";
import { APP_PORT, E2E_APP_ENV, E2E_WEBHOOK_SECRET } from "../../playwright.config";

const PORT = APP_PORT + 9;
const origin = `http://127.0.0.1:${PORT}`;
const MB = 1024 * 1024;
/** The promise the app makes: a body that has not arrived whole by then is cut (lib/http/body-guard.ts: 10 s). */
const CUT_WITHIN_MS = 30_000;

let app: ChildProcess | undefined;
let log = "";

// In order, on one worker (one instance of the app); a failure does not skip the rest.
test.describe.configure({ mode: "default" });

test.beforeAll(async () => {
  app = spawn(path.join("node_modules", ".bin", "next"), ["start", "-p", String(PORT), "-H", "127.0.0.1"], {
    env: { ...process.env, ...E2E_APP_ENV, PORT: String(PORT), PUBLIC_BASE_URL: origin },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [app.stdout!, app.stderr!]) stream.on("data", (chunk: Buffer) => (log += chunk.toString()));
  await expect.poll(async () => (await fetch(`${origin}/api/health`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
});
test.afterAll(() => void app?.kill("SIGTERM"));

/** A callback token as the gateway holds it (for a generation that does not exist: nothing is written). */
const token = callbackTokenFor("cm0000bodies0000000000000", E2E_WEBHOOK_SECRET);
const callbackPath = `/api/webhooks/gateway?token=${encodeURIComponent(token)}`;

type Sent = "nothing" | "trickle" | Buffer;
type Outcome = { status: number | null; closedByServer: boolean; ms: number };

/**
 * One request on its own socket: the headers, then nothing more, one byte a
 * second, or a whole body as fast as the server reads it. Resolves when the
 * server closes the connection, or after `waitMs` (then closedByServer is false).
 */
function send({ path: target, headers = {}, body, waitMs }: { path: string; headers?: Record<string, string>; body: Sent; waitMs: number }): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(PORT, "127.0.0.1");
    const lines = [`POST ${target} HTTP/1.1`, `Host: 127.0.0.1:${PORT}`, "Content-Type: application/json", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    const chunked = headers["Transfer-Encoding"] === "chunked";
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    let trickle: NodeJS.Timeout | undefined;
    if (body === "trickle") trickle = setInterval(() => socket.writable && socket.write(chunked ? "1\r\n{\r\n" : "{"), 1000);
    else if (body !== "nothing") socket.write(chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]) : body);
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("error", () => {});
    const finish = (closedByServer: boolean) => {
      clearInterval(trickle);
      clearTimeout(cap);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({ status: status ? Number(status) : null, closedByServer, ms: Date.now() - started });
    };
    socket.on("close", () => finish(true));
    const cap = setTimeout(() => finish(false), waitMs);
  });
}

// Every way in that takes a body: the callback, the JSON API, and server actions (a POST to a page).
const ROUTES: [name: string, path: string, headers: Record<string, string>][] = [
  ["the gateway's callback", callbackPath, {}],
  ["POST /api/generations", "/api/generations", {}],
  ["a server action", "/", { "Next-Action": "0000000000000000000000000000000000000000" }],
];

test("a body declared larger than the route takes is refused from its headers, none of it read", async () => {
  for (const [name, target, headers] of ROUTES) {
    for (const declared of [50 * MB, 2 * MB]) {
      const outcome = await send({ path: target, headers: { ...headers, "Content-Length": String(declared) }, body: "nothing", waitMs: 15_000 });
      console.log(`declared ${declared / MB} MB to ${name}: ${outcome.status} after ${outcome.ms} ms`);
      expect(outcome, `${name}, ${declared / MB} MB declared, nothing sent`).toMatchObject({ status: 413, closedByServer: true });
    }
  }
  // Just over the JSON routes' own 64 KB.
  for (const [name, target] of ROUTES.slice(0, 2)) {
    const outcome = await send({ path: target, headers: { "Content-Length": String(64 * 1024 + 1) }, body: "nothing", waitMs: 15_000 });
    expect(outcome, name).toMatchObject({ status: 413, closedByServer: true });
  }
});

test("32 connections trickling a body at 1 byte/s are each answered 408 and cut", async () => {
  test.setTimeout(CUT_WITHIN_MS + 60_000);
  const clients = Array.from({ length: 32 }, (_, i) => {
    const [, target, headers] = ROUTES[i % ROUTES.length]!;
    const framing: Record<string, string> = i % 2 === 0 ? { "Content-Length": "1000" } : { "Transfer-Encoding": "chunked" };
    return send({ path: target, headers: { ...headers, ...framing }, body: "trickle", waitMs: CUT_WITHIN_MS });
  });
  const outcomes = await Promise.all(clients);
  console.log(`32 trickling connections: closed after ${Math.min(...outcomes.map((o) => o.ms))}–${Math.max(...outcomes.map((o) => o.ms))} ms`);
  expect(outcomes.filter((o) => !o.closedByServer)).toEqual([]);
  expect(new Set(outcomes.map((o) => o.status))).toEqual(new Set([408]));
  // The server still answers everyone else.
  expect((await fetch(`${origin}/api/health`)).status).toBe(200);
});

test("a large callback body sent whole (chunked, 11 MB) is refused, and no log line holds its token", async () => {
  const outcome = await send({ path: callbackPath, headers: { "Transfer-Encoding": "chunked" }, body: Buffer.alloc(11 * MB, " "), waitMs: 20_000 });
  expect(outcome.status).toBe(413);
  // Give the server a moment to write whatever it logs about these requests.
  await expect.poll(() => fetch(`${origin}/api/health`).then((r) => r.status)).toBe(200);
  expect(log).toContain("Ready");
  expect(log).not.toContain(token);
  expect(log).not.toContain(encodeURIComponent(token));
});
