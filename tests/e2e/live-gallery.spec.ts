// The live gallery: a card turns Ready from a pushed event alone, without a
// poll or a read; with the event stream blocked, polling still finishes the
// flow; a stream the server drops is reconnected and caught up; and on
// PostgreSQL, a change written by one app instance reaches a page served by
// another.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Locator, Page, Request } from "@playwright/test";
import { APP_PORT, E2E_APP_ENV } from "../../playwright.config";
import { expect, test } from "./fixtures";

/** The gallery's reads of the JSON API, the list or one generation (not the event stream), as they happen. */
function countGalleryReads(page: Page) {
  const reads: number[] = [];
  const isRead = (request: Request) => {
    const { pathname } = new URL(request.url());
    return request.method() === "GET" && (pathname === "/api/generations" || /^\/api\/generations\/(?!events$)[^/]+$/.test(pathname));
  };
  page.on("request", (request) => isRead(request) && reads.push(Date.now()));
  return {
    since: (time: number) => reads.filter((t) => t >= time).length,
    between: (from: number, to: number) => reads.filter((t) => t >= from && t < to).length,
    /** Reads in [from, to) that no change event just before explains: polls. (Tabs see every test's generations.) */
    pollsBetween: (from: number, to: number, eventTimes: number[]) =>
      reads.filter((t) => t >= from && t < to && !eventTimes.some((e) => e <= t && t - e < 1000)).length,
  };
}

/** What the tab's EventSource receives, as Chromium's DevTools protocol reports it. */
async function recordStreamMessages(page: Page) {
  const received: { eventName: string; data: string; at: number }[] = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  cdp.on("Network.eventSourceMessageReceived", ({ eventName, data }) => received.push({ eventName, data, at: Date.now() }));
  return {
    changeTimes: () => received.filter((m) => m.eventName === "change").map((m) => m.at),
    changesSince: (time: number) =>
      received.filter((m) => m.at >= time && m.eventName === "change").map((m) => JSON.parse(m.data) as { id: string; state: string; card?: Record<string, unknown> }),
  };
}

const idOf = async (card: Locator) => (await card.getByRole("link", { name: /Details/ }).getAttribute("href"))!.split("/").at(-1)!;

test("a callback turns the card Ready from the pushed event alone: no poll while pending, no read after it", async ({ gallery, simulator, page }) => {
  // Long enough that polling (every 3 s) would read the list meanwhile.
  await simulator.scenario({ pendingMs: 6000 });
  const reads = countGalleryReads(page);
  const stream = await recordStreamMessages(page);
  const prompt = simulator.prompt("Lanterns rising over a river");
  await gallery.goto();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Generating");
  // The reads the submission itself causes (its answer, its events) are over within a second.
  await page.waitForTimeout(1500);
  const quietFrom = Date.now();
  const card = gallery.card(prompt);
  const id = await idOf(card);

  await expect(gallery.badge(prompt)).toHaveText("Ready", { timeout: 20_000 });
  // What the outcome changed on the card came with the event: the charge, then the stored copy to play and download.
  await expect(card.getByTestId("generation-credits")).toHaveText(/^\d+ credits$/);
  await expect(card.getByRole("link", { name: /Download/ })).toHaveAttribute("href", /^\/api\/media\//, { timeout: 15_000 });
  const [callback] = await simulator.callbacks();
  expect(callback?.status).toBe(200);
  const changes = stream.changesSince(quietFrom).filter((change) => change.id === id);
  expect(changes).toContainEqual(
    expect.objectContaining({ state: "SUCCESS", card: expect.objectContaining({ state: "SUCCESS", charge: { status: "captured", credits: expect.any(Number) } }) }),
  );
  // No poll while the task was pending, and not one read of the list or the row since the callback.
  expect(reads.pollsBetween(quietFrom, callback!.at!, stream.changeTimes())).toBe(0);
  expect(reads.since(callback!.at!)).toBe(0);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
});

test("with the event stream blocked, the same flow completes by polling", async ({ gallery, simulator, page, browserErrors }) => {
  browserErrors.allow({ kind: "console", url: /\/api\/generations\/events/, reason: "this test blocks the event stream" });
  browserErrors.allow({ kind: "console", text: /api\/generations\/events/, reason: "this test blocks the event stream" });
  await page.route("**/api/generations/events**", (route) => route.abort());
  await simulator.scenario({ pendingMs: 6000 });
  const reads = countGalleryReads(page);
  const prompt = simulator.prompt("Snow falling on a lighthouse");
  await gallery.goto();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "polling");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Generating");
  await page.waitForTimeout(1500);
  const quietFrom = Date.now();
  await expect(gallery.badge(prompt)).toHaveText("Ready", { timeout: 20_000 });
  const [callback] = await simulator.callbacks();
  // Polled at the fallback's pace (every 3 s) while the task was pending.
  expect(reads.between(quietFrom, callback!.at!)).toBeGreaterThanOrEqual(1);
});

test("a stream the server ends is reconnected and catches up on what it missed", async ({ gallery, simulator, page }) => {
  const stream = await recordStreamMessages(page);

  const prompt = simulator.prompt("Waves breaking on a pier");
  await gallery.goto();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");

  // Hold the browser's reconnect once the server ends the stream (EVENTS_STREAM_SECONDS).
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reconnect!: () => void;
  const reconnected = new Promise<void>((resolve) => (reconnect = resolve));
  await page.route("**/api/generations/events**", async (route) => {
    reconnect();
    await released;
    await route.continue();
  });
  await reconnected;

  // While the tab has no stream, the task is submitted, finishes, and is called back.
  const reads = countGalleryReads(page);
  await gallery.submit(prompt);
  await expect.poll(async () => (await simulator.callbacks()).map((c) => c.status), { timeout: 15_000 }).toContain(200);
  const missedFrom = Date.now();
  await page.waitForTimeout(500);
  await expect(gallery.badge(prompt)).toHaveText("Generating");
  expect(reads.since(missedFrom)).toBe(0);
  const id = await idOf(gallery.card(prompt));

  const releasedAt = Date.now();
  release();
  await expect(gallery.badge(prompt)).toHaveText("Ready", { timeout: 5_000 });
  // It came from the reconnected stream's catch-up (Last-Event-ID), not from a poll.
  expect(stream.changesSince(releasedAt)).toContainEqual(expect.objectContaining({ id, state: "SUCCESS" }));
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
});

test("an idle gallery fetches nothing for its cards' links: only its stream stays open", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("Lanterns drifting on a still lake");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");

  // A fresh load of a gallery with Details links in view, left alone.
  const detailFetches: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/generations/")) detailFetches.push(request.url());
  });
  await page.reload();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  await expect(gallery.card(prompt).getByRole("link", { name: /Details/ })).toBeVisible();
  await page.waitForTimeout(2_000);
  // Link prefetching would fetch every card's page, again whenever the list refreshes: on a busy gallery that is most of its traffic.
  expect(detailFetches).toEqual([]);
});

test.describe("two app instances on one PostgreSQL database", () => {
  test.skip(process.env.TEST_DATABASE !== "postgres", "instances share events through PostgreSQL LISTEN/NOTIFY; SQLite serves one instance");
  const OTHER_PORT = APP_PORT + 7;
  const otherUrl = `http://127.0.0.1:${OTHER_PORT}`;
  let other: ChildProcess | undefined;

  test.beforeAll(async () => {
    // The same build, database, simulator and secrets as the suite's app, on a port of its own.
    other = spawn(path.join("node_modules", ".bin", "next"), ["start", "-p", String(OTHER_PORT), "-H", "127.0.0.1"], {
      env: { ...process.env, ...E2E_APP_ENV, PORT: String(OTHER_PORT), PUBLIC_BASE_URL: otherUrl },
      stdio: "ignore",
    });
    await expect.poll(async () => (await fetch(`${otherUrl}/api/health`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
  });
  test.afterAll(() => void other?.kill("SIGTERM"));

  test("a task submitted to and called back on one instance turns Ready on a page served by the other", async ({ gallery, simulator, page }) => {
    const stream = await recordStreamMessages(page);
    const prompt = simulator.prompt("Fireflies over a wheat field");
    await page.goto(`${otherUrl}/`);
    await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");

    // Submitted to the suite's instance (same visitor: the cookie is the browser's), so the gateway calls that one back.
    const created = await page.request.post("/api/generations", { data: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } } });
    expect(created.status()).toBe(201);
    const { id, state } = (await created.json()) as { id: string; state: string };
    expect(state).toBe("PENDING");

    await expect(gallery.badge(prompt)).toHaveText("Ready");
    const [callback] = await simulator.callbacks();
    expect(callback).toMatchObject({ state: "SUCCESS", status: 200 });
    // The other instance's stream carried the outcome, which that instance never wrote: the
    // callback to the suite's instance applied it (had the other one polled, this would say poll).
    const heard = stream.changesSince(0).filter((change) => change.id === id).map((change) => change.state);
    expect(heard).toContain("SUCCESS");
    await page.goto(`${otherUrl}/generations/${id}`);
    await expect(page.getByTestId("delivery").filter({ hasText: /applied/ })).toHaveText([/^callback reported SUCCESS → applied/]);
  });
});
