// The gateway key and the webhook secret live on the server only: never in a
// client bundle, a served page, or an API answer (error answers included).
import fs from "node:fs";
import path from "node:path";
import { callbackTokenFor } from "../../lib/generations/callback-token";
import { E2E_ADMIN_PASSWORD, E2E_CRON_SECRET, E2E_GATEWAY_API_KEY, E2E_WEBHOOK_SECRET } from "../../playwright.config";
import { expect, test } from "./fixtures";

const SECRETS = {
  GATEWAY_API_KEY: E2E_GATEWAY_API_KEY,
  WEBHOOK_SECRET: E2E_WEBHOOK_SECRET,
  CRON_SECRET: E2E_CRON_SECRET,
  ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
};
const distDir = process.env.NEXT_DIST_DIR || ".next";

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

function leaks(text: string, extra: Record<string, string> = {}): string[] {
  return Object.entries({ ...SECRETS, ...extra }).filter(([, value]) => text.includes(value)).map(([name]) => name);
}

test("the client bundles hold neither secret", () => {
  const files = filesUnder(path.join(distDir, "static"));
  const scripts = files.filter((f) => f.endsWith(".js"));
  // A scan of nothing proves nothing.
  expect(scripts.length).toBeGreaterThan(5);
  const found = files.flatMap((file) => leaks(fs.readFileSync(file, "latin1")).map((name) => `${name} in ${file}`));
  expect(found).toEqual([]);
});

test("served pages and API answers hold neither secret nor a callback token", async ({ request, simulator }) => {
  const created = await request.post("/api/generations", {
    data: { model: "alpha-2.5-text-to-video-480p", input: { prompt: simulator.prompt("A kite over dunes"), duration: 2 } },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // Whoever holds a generation's callback token can report its outcome: it must not reach the browser either.
  const token = callbackTokenFor(id, E2E_WEBHOOK_SECRET);

  const answers: [string, Promise<import("@playwright/test").APIResponse>][] = [
    ["/", request.get("/")],
    [`/generations/${id}`, request.get(`/generations/${id}`)],
    ["/generations/unknown", request.get("/generations/does-not-exist")],
    ["GET /api/generations", request.get("/api/generations")],
    [`GET /api/generations/${id}`, request.get(`/api/generations/${id}`)],
    ["GET /api/credits", request.get("/api/credits")],
    ["GET /api/health", request.get("/api/health")],
    ["/admin signed out", request.get("/admin")],
    ["bad JSON", request.post("/api/generations", { headers: { "Content-Type": "application/json" }, data: "{nope" })],
    ["bad input", request.post("/api/generations", { data: { model: "nope", input: { prompt: 1 } } })],
    ["forged callback", request.post("/api/webhooks/gateway?token=forged.token", { data: { taskId: "x", state: "SUCCESS" } })],
    ["callback GET", request.get("/api/webhooks/gateway")],
    ["cron without secret", request.get("/api/cron/reconcile", { headers: { Authorization: "Bearer wrong" } })],
  ];
  for (const [name, pending] of answers) {
    const response = await pending;
    expect(response.status(), name).toBeLessThan(500);
    const text = `${JSON.stringify(response.headers())}\n${await response.text()}`;
    expect(leaks(text, { callbackToken: token }), name).toEqual([]);
  }
});

test("the browser never sees a secret on the wire while using the app", async ({ page, gallery, simulator }) => {
  const seen: string[] = [];
  const scanned: string[] = [];
  const unread: string[] = [];
  // Every answer passes through here and is read whole before the browser gets
  // it (a browser drops the bodies of a page it navigated away from, so reading
  // them afterwards would skip some). The event stream never ends: only its
  // headers are read, below.
  await page.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/api/generations/events") return route.continue();
    let fetched;
    try {
      const response = await route.fetch({ maxRedirects: 0 });
      fetched = { response, body: await response.body() };
    } catch (error) {
      unread.push(`${url.pathname}: ${String(error)}`);
      return route.abort().catch(() => undefined);
    }
    scanned.push(url.pathname);
    const text = fetched.body.toString("latin1") + JSON.stringify(fetched.response.headersArray());
    seen.push(...leaks(text).map((name) => `${name} in ${url.pathname}`));
    // The browser may have given up on a request meanwhile (a player's range request): it was read all the same.
    await route.fulfill(fetched).catch(() => undefined);
  });
  page.on("response", async (response) => {
    const headers = JSON.stringify(await response.allHeaders().catch(() => ({})));
    seen.push(...leaks(headers).map((name) => `${name} in the headers of ${new URL(response.url()).pathname}`));
  });
  await gallery.goto();
  await gallery.submit(simulator.prompt("A lighthouse at dawn"));
  await expect(gallery.card(simulator.marker).getByTestId("state-badge")).toHaveText("Ready");
  await gallery.card(simulator.marker).getByRole("link", { name: /^Details/ }).click();
  await expect(page).toHaveURL(/\/generations\//);
  // The detail page as a document too, not only as the client navigation's payload.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Timeline" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  expect(seen).toEqual([]);
  // A scan of nothing proves nothing: the pages, their scripts and the API answers were read whole.
  expect(scanned.filter((p) => p === "/").length, "the gallery page").toBeGreaterThan(0);
  expect(scanned.filter((p) => p.startsWith("/generations/")).length, "the detail page").toBeGreaterThan(0);
  expect(scanned.filter((p) => p.startsWith("/_next/static/")).length, "scripts").toBeGreaterThan(5);
  expect(scanned.filter((p) => p.startsWith("/api/")).length, "API answers").toBeGreaterThan(0);
  expect(unread).toEqual([]);
});
