// 7. The live gallery: callback-to-pixel latency in real Chromium pages, push
// (the event stream) and polling (the same page with the stream blocked) in
// the same run on the same tasks, against a floor measured the same way in
// the same browser: a bare event stream that paints an element when poked,
// with none of the app's work; then what open tabs cost: requests per minute
// of idle tabs, and the server's memory per open stream. The push latency is
// taken in rounds, alternately against the app and a second `next start` of
// the same build with media copies off, to see what media work costs it, and
// against the app while uploads are checked beside it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { uniqueMarker } from "../../tests/support/simulator-control";
import { SseReader } from "../../tests/support/sse-reader";
import { freePort } from "../../scripts/free-port";
import type { Section } from "../report";
import { benchViewerCookie, waitForCopiesSettled, waitForStillsSettled, type BenchDb } from "../db";
import type { Stack } from "../stack";
import { median } from "../stats";
import { describeCodes } from "./callback-receiver";
import { countStatuses, hdClip, UPLOADS_BESIDE, withUploadsBeside } from "./uploads";

/** Rounds of each kind (copies on, copies off, copies on with uploads beside), rotating; the figures are the rounds' medians. */
const ROUNDS = 3;
/** A round is two batches of 20: a batch must fit the gallery's first page (24 cards). */
const BATCHES = 2;
const BATCH_TASKS = 20;
const TASKS = BATCHES * BATCH_TASKS;
const SPACING_MS = 400;
/** Long enough that every task of a batch is PENDING when the polling page reloads to list them. */
const PENDING_MS = BATCH_TASKS * SPACING_MS + 4000;
const IDLE_TABS = 50;
const IDLE_MS = 60_000;
const MEMORY_STREAMS = 500;
/** Push p95 with uploads checked beside, against the same app without them. */
const UPLOADS_BESIDE_TARGET = 1.25;
/** How long the idle tabs wait for copies to settle, retries due within it included. */
const IDLE_SETTLE_MS = 5 * 60_000;
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

// The time (same clock as the simulator's) at which each card's badge first reads "Ready".
const OBSERVE_READY = `(() => {
  window.__ready = {};
  const scan = () => {
    const now = Date.now();
    for (const card of document.querySelectorAll("article")) {
      const match = /live latency (\\d+) /.exec(card.getAttribute("aria-label") ?? "");
      const badge = card.querySelector('[data-testid="state-badge"]');
      if (match && badge?.textContent?.trim() === "Ready" && !(match[1] in window.__ready)) window.__ready[match[1]] = now;
      const link = card.querySelector('a[href^="/generations/"]');
      if (match && link) (window.__ids ??= {})[match[1]] = link.getAttribute("href").split("/").pop();
    }
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

/**
 * The floor's page: the same cards' badges as plain elements, and an
 * EventSource that sets one to "Ready" per event. No framework, no fetch.
 */
const FLOOR_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bare event stream</title></head><body><main id="cards"></main><script>
const cards = document.getElementById("cards");
for (let i = 0; i < ${TASKS}; i++) {
  const index = String(i).padStart(2, "0");
  cards.insertAdjacentHTML("beforeend", '<article aria-label="live latency ' + index + ' floor"><span data-testid="state-badge" id="badge-' + index + '">Generating</span></article>');
}
const source = new EventSource("/events");
source.onopen = () => { window.__open = true; };
source.addEventListener("poke", (event) => { document.getElementById("badge-" + event.data).textContent = "Ready"; });
</script></body></html>`;

export async function benchLiveGallery(stack: Stack, db: BenchDb): Promise<Section> {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  try {
    const ms = (sorted: number[]) => `p50 ${pct(sorted, 50).toFixed(0)} / p95 ${pct(sorted, 95).toFixed(0)} ms`;
    // A second `next start` of the same build on the same database and simulator, with media copies off:
    // its tasks' callbacks come to it (the callback URL is its PUBLIC_BASE_URL) and start no copy.
    const copiesOff = await stack.startApp({ port: await freePort(), env: { MEDIA_STORAGE: "none" }, log: "app-copies-off.log" });
    const latency: Record<Copies, Latency[]> = { on: [], off: [], beside: [] };
    const clipDir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-bench-live-"));
    const clip = hdClip(clipDir);
    const uploads: number[] = [];
    try {
      // The second app is fresh: its pages, routes and pools warm up before anything is timed (and the first app's alike).
      await warmUp(stack, browser, stack.appUrl);
      await warmUp(stack, browser, copiesOff.url);
      for (let round = 0; round < ROUNDS; round++) {
        // Rotating which goes first, so that a drift of the shared machine falls on all alike.
        const kinds: Copies[] = ["on", "off", "beside"];
        for (const [slot, copies] of [...kinds.slice(round % 3), ...kinds.slice(0, round % 3)].entries()) {
          // Each round starts quiet: the copies an earlier round's results started are done, and so are
          // their stills (a round with uploads beside leaves some for later, when the media pool is busy;
          // the next round's pages would ask for them, and that round would pay for them).
          await waitForCopiesSettled(db);
          await waitForStillsSettled(db, { appUrl: stack.appUrl, cookie: benchViewerCookie(stack.webhookSecret) });
          const firstIndex = (round * kinds.length + slot) * TASKS;
          const measure = () => measureLatency(stack, browser, copies === "off" ? copiesOff.url : stack.appUrl, firstIndex);
          let result: Latency;
          if (copies === "beside") {
            const run = await withUploadsBeside(stack.appUrl, clip, measure);
            uploads.push(...run.statuses);
            result = run.result;
          } else result = await measure();
          latency[copies].push(result);
          console.log(`[bench] live gallery: round ${round + 1}, copies ${copies}: push ${ms(result.push)} over ${result.push.length} cards (callback → published ${ms(result.toPublished)}, → event ${ms(result.toEvent)}, event → Ready ${ms(result.toPixel)}), polling ${ms(result.poll)} over ${result.poll.length}`);
        }
      }
    } finally {
      await copiesOff.stop();
      fs.rmSync(clipDir, { recursive: true, force: true });
    }
    const floor = await measureFloor(browser);
    console.log(`[bench] live gallery: floor ${ms(floor)} (${floor.length} elements)`);
    // For iterating on latency alone (opening 50 tabs takes minutes on a busy machine).
    if (process.env.BENCH_LIVE_LATENCY_ONLY === "1") return report({ latency, floor, uploads });
    // The latency figures stand even if the tabs cannot all be opened on a machine this busy.
    try {
      // Idle means nothing changes: the copies of the videos just made finish first, and the
      // stills left for later (busy beside uploads) are made, or their cards would rightly
      // switch to the stored file or the still, and every tab hear of it, while being counted.
      // Retries included: a copy that failed under the rounds' load tries again after a backoff
      // (10 s, 40 s, 160 s, …), and finishing during the count would change a card in every tab.
      const copiesLeft = await waitForCopiesSettled(db, IDLE_SETTLE_MS);
      await logRetriedCopies(db);
      if (copiesLeft > 0) console.log(`[bench] live gallery: ${copiesLeft} copies still pending before the idle tabs`);
      const stillsLeft = await waitForStillsSettled(db, { appUrl: stack.appUrl, cookie: benchViewerCookie(stack.webhookSecret) });
      if (stillsLeft > 0) console.log(`[bench] live gallery: ${stillsLeft} stills still untried before the idle tabs`);
      const idle = await measureIdleTabs(stack, browser);
      const memory = await measureStreamMemory(stack);
      return report({ latency, floor, uploads, idle, memory });
    } catch (error) {
      return report({ latency, floor, uploads, idleError: error instanceof Error ? error.message.split("\n")[0]! : String(error) });
    }
  } finally {
    await browser.close();
  }
}

/** Copies that needed more than one attempt in the rounds, and why their attempts failed: what a reader of the figures would ask. */
async function logRetriedCopies(db: BenchDb) {
  const groups = await db.mediaCopy.groupBy({ by: ["state", "attempts", "lastError"], where: { attempts: { gt: 1 } }, _count: true });
  for (const { state, attempts, lastError, _count } of groups) {
    console.log(`[bench] live gallery: ${_count} copies ${state} after ${attempts} attempts${lastError ? ` (last error: ${lastError})` : ""}`);
  }
}

// When the tab's EventSource first hears each generation's SUCCESS (installed before the app's own listener), to split the latency into server and browser parts.
const HEAR_EVENTS = `(() => {
  window.__heard = {};
  window.__published = {};
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("change", (event) => {
        const change = JSON.parse(event.data);
        if (change.state === "SUCCESS" && !(change.id in window.__heard)) {
          window.__heard[change.id] = Date.now();
          // The event's id is its position: the app's clock (Date.now()) when it published the change.
          window.__published[change.id] = Number(event.lastEventId);
        }
      });
    }
  };
})()`;

/** Copies on (the app), off (the second app), or on with uploads checked beside (the app). */
type Copies = "on" | "off" | "beside";
type Latency = Awaited<ReturnType<typeof measureLatency>>;

async function openGallery(browser: Browser, stack: Stack, { push, appUrl = stack.appUrl }: { push: boolean; appUrl?: string }): Promise<{ context: BrowserContext; page: Page }> {
  // A context per tab: its own connection pool, as separate browser windows' tabs would share one host's six.
  const context = await browser.newContext();
  // Galleries are per owner: every tab is the bench owner's, as the submissions below are.
  const cookie = benchViewerCookie(stack.webhookSecret);
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
  await context.addCookies([{ name, value, url: appUrl, httpOnly: true, sameSite: "Lax" }]);
  const page = await context.newPage();
  if (!push) await page.route("**/api/generations/events**", (route) => route.abort());
  else await page.addInitScript(HEAR_EVENTS);
  // A shared 2-core machine opening many tabs is slow: generous timeouts, no wait for media.
  await page.goto(`${appUrl}/`, { waitUntil: "domcontentloaded", timeout: 120_000 });
  await page.getByTestId("live-indicator").and(page.locator(`[data-status="${push ? "live" : "polling"}"]`)).waitFor({ timeout: 120_000 });
  return { context, page };
}

const submit = async (stack: Stack, appUrl: string, prompt: string) => {
  const response = await fetch(`${appUrl}/api/generations`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: benchViewerCookie(stack.webhookSecret) },
    body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 5 } }),
  });
  if (response.status !== 201) throw new Error(`live gallery benchmark: submission "${prompt}" answered ${response.status}`);
};

/** Not timed: a gallery page of each kind, and two tasks through submission, callback and event, on a freshly started app. */
async function warmUp(stack: Stack, browser: Browser, appUrl: string) {
  const marker = uniqueMarker("bench-live-warm");
  await stack.simulator.scenario({ match: marker, pendingMs: 1000 });
  const push = await openGallery(browser, stack, { push: true, appUrl });
  const poll = await openGallery(browser, stack, { push: false, appUrl });
  try {
    for (let i = 0; i < 2; i++) await submit(stack, appUrl, `warm-up ${i} ${marker}`);
    await push.page.locator(`article[aria-label*="${marker}"] [data-testid="state-badge"]`, { hasText: "Ready" }).nth(1).waitFor({ timeout: 30_000 }).catch(() => undefined);
  } finally {
    await push.context.close();
    await poll.context.close();
  }
}

/** One round: BATCHES batches of tasks submitted to `appUrl`, watched by a push page and a polling page of that app; cards numbered from `firstIndex`. */
async function measureLatency(stack: Stack, browser: Browser, appUrl: string, firstIndex: number) {
  const marker = uniqueMarker("bench-live");
  await stack.simulator.scenario({ match: marker, pendingMs: PENDING_MS });
  const push = await openGallery(browser, stack, { push: true, appUrl });
  const poll = await openGallery(browser, stack, { push: false, appUrl });
  const label = (i: number) => String(firstIndex + i).padStart(3, "0");
  const ready: Record<"push" | "poll", Record<string, number>> = { push: {}, poll: {} };
  // The first time seen wins: a batch's observer, installed afresh, also sees the earlier batches' and rounds' cards (already Ready) at its first scan.
  const collect = async () => {
    for (const [name, { page }] of [["push", push], ["poll", poll]] as const) {
      for (const [index, at] of Object.entries((await page.evaluate("window.__ready")) as Record<string, number>)) ready[name][index] ??= at;
    }
  };

  for (let batch = 0; batch < BATCHES; batch++) {
    for (const { page } of [push, poll]) await page.evaluate(OBSERVE_READY);
    for (let i = batch * BATCH_TASKS; i < (batch + 1) * BATCH_TASKS; i++) {
      await submit(stack, appUrl, `live latency ${label(i)} ${marker}`);
      await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
    }
    // Without events, a tab learns of tasks submitted elsewhere only by loading the page: load it
    // while they are all still PENDING, as a user who submitted them would have it.
    await poll.page.reload({ waitUntil: "domcontentloaded" });
    await poll.page.getByTestId("live-indicator").and(poll.page.locator('[data-status="polling"]')).waitFor({ timeout: 60_000 });
    await poll.page.evaluate(OBSERVE_READY);
    // This round's cards so far (the pages also show earlier rounds' cards, already Ready).
    const expected = Array.from({ length: (batch + 1) * BATCH_TASKS }, (_, i) => label(i));
    const done = (times: Record<string, number>) => expected.every((index) => index in times);
    const deadline = Date.now() + PENDING_MS + 60_000;
    while (Date.now() < deadline) {
      await collect();
      if (done(ready.push) && done(ready.poll)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  const tasks = await stack.simulator.tasks(marker);
  const indexOf = new Map(tasks.map((t) => [t.taskId, /live latency (\d+) /.exec(t.prompt)![1]!]));
  const sentAt = new Map<string, number>();
  for (const attempt of await stack.simulator.callbacks(marker)) {
    const index = indexOf.get(attempt.taskId);
    if (index !== undefined && attempt.state === "SUCCESS") sentAt.set(index, Math.min(sentAt.get(index) ?? Infinity, attempt.at!));
  }
  const latencies = (times: Record<string, number>) =>
    [...sentAt].flatMap(([index, at]) => (times[index] === undefined ? [] : [times[index]! - at])).sort((a, b) => a - b);
  // The push page's split: callback → event heard in the tab (server, network), event → "Ready" (the browser's work).
  const ids = (await push.page.evaluate("window.__ids ?? {}")) as Record<string, string>;
  const heardById = (await push.page.evaluate("window.__heard")) as Record<string, number>;
  const publishedById = (await push.page.evaluate("window.__published")) as Record<string, number>;
  // Only this round's cards: a copy finishing for an earlier round's card is also a SUCCESS change heard here.
  const byIndex = (byId: Record<string, number>) =>
    Object.fromEntries(Object.entries(ids).flatMap(([index, id]) => (byId[id] === undefined || !sentAt.has(index) ? [] : [[index, byId[id]!]])));
  const heard = byIndex(heardById);
  const published = byIndex(publishedById);
  const publishedToHeard = Object.entries(heard)
    .flatMap(([index, at]) => (published[index] === undefined ? [] : [at - published[index]!]))
    .sort((a, b) => a - b);
  const toPixel = Object.entries(heard)
    .flatMap(([index, at]) => (ready.push[index] === undefined ? [] : [ready.push[index]! - at]))
    .sort((a, b) => a - b);
  const result = { push: latencies(ready.push), poll: latencies(ready.poll), callbacks: sentAt.size, toEvent: latencies(heard), toPublished: latencies(published), publishedToHeard, toPixel };
  await push.context.close();
  await poll.context.close();
  return result;
}

/**
 * The floor: a bare Server-Sent Events server in this process and a static
 * page in its own context of the same Chromium. Each poke is an HTTP POST, as
 * a callback is, timed from just before it is sent to the same observer
 * seeing the element read "Ready"; same count and spacing as the tasks.
 */
async function measureFloor(browser: Browser): Promise<number[]> {
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    if (request.url === "/events") {
      response.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache" });
      response.write("retry: 1000\n\n");
      streams.add(response);
      request.on("close", () => streams.delete(response));
    } else if (request.method === "POST" && request.url?.startsWith("/poke/")) {
      const index = request.url.slice("/poke/".length);
      for (const stream of streams) stream.write(`event: poke\ndata: ${index}\n\n`);
      response.end();
    } else {
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(FLOOR_PAGE);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "domcontentloaded" });
    await page.waitForFunction("window.__open === true");
    await page.evaluate(OBSERVE_READY);
    const sentAt = new Map<string, number>();
    for (let i = 0; i < TASKS; i++) {
      const index = String(i).padStart(2, "0");
      sentAt.set(index, Date.now());
      await fetch(`${url}/poke/${index}`, { method: "POST" });
      await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
    }
    await page.waitForFunction(`Object.keys(window.__ready).length >= ${TASKS}`, undefined, { timeout: 30_000 }).catch(() => undefined);
    const ready = (await page.evaluate("window.__ready")) as Record<string, number>;
    return [...sentAt].flatMap(([index, at]) => (ready[index] === undefined ? [] : [ready[index]! - at])).sort((a, b) => a - b);
  } finally {
    await context.close();
    for (const stream of streams) stream.end();
    server.close();
  }
}

async function measureIdleTabs(stack: Stack, browser: Browser) {
  const requests = { streams: 0, prefetches: 0, other: 0, otherUrls: new Set<string>() };
  const tabs: BrowserContext[] = [];
  let counting = false;
  const opened: BrowserContext[] = [];
  for (let i = 0; i < IDLE_TABS; i += 5) {
    opened.push(...(await Promise.all(Array.from({ length: Math.min(5, IDLE_TABS - i) }, async () => (await openGallery(browser, stack, { push: true })).context))));
    console.log(`[bench] live gallery: ${opened.length}/${IDLE_TABS} idle tabs open`);
  }
  for (const context of opened) {
    context.on("request", (request) => {
      if (!counting) return;
      const { pathname } = new URL(request.url());
      if (pathname === "/api/generations/events") requests.streams++;
      // Next prefetches the header's links once per page, when the browser is next idle: a page's
      // load, late in a tab opened among 50 on two cores, not a request that repeats.
      else if (request.headers()["next-router-prefetch"]) requests.prefetches++;
      else {
        requests.other++;
        requests.otherUrls.add(pathname);
      }
    });
    tabs.push(context);
  }
  const pid = appPid(stack);
  const rssWithTabs = pid ? rssKiB(pid) : NaN;
  counting = true;
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  counting = false;
  for (const context of tabs) await context.close();
  return { ...requests, otherUrls: [...requests.otherUrls], rssWithTabs };
}

async function measureStreamMemory(stack: Stack) {
  const pid = appPid(stack);
  if (!pid) return undefined;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const before = rssKiB(pid);
  const streams = await Promise.all(Array.from({ length: MEMORY_STREAMS }, () => SseReader.open(`${stack.appUrl}/api/generations/events`, { Cookie: benchViewerCookie(stack.webhookSecret) })));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !streams.every((s) => s.messages.some((m) => m.event === "ready"))) await new Promise((r) => setTimeout(r, 200));
  const opened = streams.filter((s) => s.messages.some((m) => m.event === "ready")).length;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const after = rssKiB(pid);
  for (const stream of streams) stream.close();
  return { before, after, opened, perStreamKiB: (after - before) / Math.max(opened, 1) };
}

/** The process listening on the app's port (`next start` serves from one process). */
function appPid(stack: Stack): number | undefined {
  const port = new URL(stack.appUrl).port;
  try {
    const out = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
    return Number(/pid=(\d+)/.exec(out)?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function report({
  latency,
  floor,
  uploads,
  idle,
  memory,
  idleError,
}: {
  /** The rounds with copies on (the app), off (the second app) and on with uploads beside (the app). */
  latency: Record<Copies, Latency[]>;
  floor: number[];
  /** Statuses of the uploads sent beside the "beside" rounds. */
  uploads: number[];
  idle?: Awaited<ReturnType<typeof measureIdleTabs>>;
  memory?: Awaited<ReturnType<typeof measureStreamMemory>>;
  /** Why the idle tabs could not be measured. */
  idleError?: string;
}): Section {
  // Each figure: the median over the rounds of that round's percentile; copies on unless said.
  const over = (copies: Copies, series: (l: Latency) => number[], p: number) => median(latency[copies].map((l) => pct(series(l), p)));
  const perRound = (copies: Copies, series: (l: Latency) => number[], p: number) => latency[copies].map((l) => pct(series(l), p).toFixed(0)).join(", ");
  const count = (copies: Copies, series: (l: Latency) => number[]) => latency[copies].reduce((sum, l) => sum + series(l).length, 0);
  const [push50, push95, poll50, poll95] = [over("on", (l) => l.push, 50), over("on", (l) => l.push, 95), over("on", (l) => l.poll, 50), over("on", (l) => l.poll, 95)];
  const [off50, off95] = [over("off", (l) => l.push, 50), over("off", (l) => l.push, 95)];
  const [beside50, beside95] = [over("beside", (l) => l.push, 50), over("beside", (l) => l.push, 95)];
  const uploadsKept = uploads.filter((status) => status === 201).length;
  const rounds = latency.on.length;
  const [floor50, floor95] = [pct(floor, 50), pct(floor, 95)];
  const perMinute = (n: number) => (n * 60_000) / IDLE_MS;
  const bare = "bare event stream, same browser (floor)";
  return {
    title: "7. Live gallery",
    setup: `${ROUNDS} rounds against the app, ${ROUNDS} against a second \`next start\` of the same build, database and simulator with \`MEDIA_STORAGE=none\` (copies off) and ${ROUNDS} against the app with uploads checked beside (below), rotating (on, off, beside; off, beside, on; …), each round starting once the copies earlier rounds started are done and their stills made. A round: ${TASKS} tasks (${BATCHES} batches of ${BATCH_TASKS}, so a batch fits the gallery's first page) submitted through \`POST /api/generations\` of that app ${SPACING_MS} ms apart, each PENDING ${PENDING_MS / 1000} s then called back with SUCCESS (to the app that submitted it, which then, with copies on, copies the result and makes its still while the next callbacks arrive). Two gallery pages of that app in the system Chromium (headless, a browser context each) watch the same tasks: one with the event stream (push), one with \`/api/generations/events\` blocked by \`page.route\`, so it falls back to SWR polling every 3 s. Latency figures are the median over the rounds of each round's percentile, copies on unless said (push p95 per round, copies on: ${perRound("on", (l) => l.push, 95)} ms; copies off: ${perRound("off", (l) => l.push, 95)} ms; uploads beside: ${perRound("beside", (l) => l.push, 95)} ms). In the rounds with uploads beside, ${UPLOADS_BESIDE} uploads at a time of a 1080p clip (about 3 MB, each from a new visitor, through \`POST /api/uploads\`: sniffed, probed and remuxed on the app's worker threads) run back to back against the app (copies on) for the whole round. Each app first gets two untimed tasks and its two pages opened once (warm-up). Latency: from the simulator starting to send the SUCCESS callback (its \`at\`, from \`/__control/callbacks\`) to a MutationObserver in the page seeing the card's badge read "Ready" (\`Date.now()\` on the same machine's clock). Idle tabs: ${IDLE_TABS} gallery pages (a context each) with nothing pending, requests counted for ${IDLE_MS / 1000} s. Memory: the app process's RSS (\`/proc/<pid>/status\`) before and after opening ${MEMORY_STREAMS} more streams from Node.`,
    figures: [
      { label: "Callback-to-pixel p50, push", value: push50, unit: "ms", baseline: { label: bare, value: floor50 } },
      { label: "Callback-to-pixel p95, push", value: push95, unit: "ms", baseline: { label: bare, value: floor95 } },
      { label: "Callback-to-pixel p50, push, copies off (second app, `MEDIA_STORAGE=none`)", value: off50, unit: "ms", baseline: { label: "copies on", value: push50 } },
      { label: "Callback-to-pixel p95, push, copies off (second app, `MEDIA_STORAGE=none`)", value: off95, unit: "ms", baseline: { label: "copies on", value: push95 } },
      { label: `Callback-to-pixel p50, push, ${UPLOADS_BESIDE} uploads of a 1080p clip checked beside`, value: beside50, unit: "ms", baseline: { label: "copies on", value: push50 } },
      { label: `Callback-to-pixel p95, push, ${UPLOADS_BESIDE} uploads of a 1080p clip checked beside`, value: beside95, unit: "ms", baseline: { label: "copies on", value: push95 } },
      { label: "Uploads checked and kept beside (201)", value: uploadsKept, unit: "", baseline: { label: "uploads sent", value: uploads.length } },
      { label: "Callback-to-pixel p50, polling (same page, event stream blocked)", value: poll50, unit: "ms", baseline: { label: "push", value: push50 } },
      { label: "Callback-to-pixel p95, polling (same page, event stream blocked)", value: poll95, unit: "ms", baseline: { label: "push", value: push95 } },
      { label: "Push, callback → event heard in the tab p50", value: over("on", (l) => l.toEvent, 50), unit: "ms" },
      { label: "Push, callback → event heard in the tab p95", value: over("on", (l) => l.toEvent, 95), unit: "ms" },
      { label: "Push, callback → published by the app p50", value: over("on", (l) => l.toPublished, 50), unit: "ms" },
      { label: "Push, callback → published by the app p95", value: over("on", (l) => l.toPublished, 95), unit: "ms" },
      { label: "Push, published → event heard in the tab p50", value: over("on", (l) => l.publishedToHeard, 50), unit: "ms" },
      { label: "Push, published → event heard in the tab p95", value: over("on", (l) => l.publishedToHeard, 95), unit: "ms" },
      { label: "Push, event heard → card reads Ready p50", value: over("on", (l) => l.toPixel, 50), unit: "ms" },
      { label: "Push, event heard → card reads Ready p95", value: over("on", (l) => l.toPixel, 95), unit: "ms" },
      { label: "Cards timed, copies on (push / polling)", value: count("on", (l) => l.push), unit: "", baseline: { label: "polling", value: count("on", (l) => l.poll) } },
      { label: "Cards timed, copies off (push / polling)", value: count("off", (l) => l.push), unit: "", baseline: { label: "polling", value: count("off", (l) => l.poll) } },
      { label: "Elements timed on the bare stream", value: floor.length, unit: "" },
      ...(idle
        ? [
            { label: `Idle tabs: requests per minute besides event streams (${IDLE_TABS} tabs)`, value: perMinute(idle.other), unit: "" },
            { label: `Idle tabs: event stream connections opened per minute (${IDLE_TABS} tabs)`, value: perMinute(idle.streams), unit: "" },
            { label: `App RSS with ${IDLE_TABS} tabs open`, value: idle.rssWithTabs / 1024, unit: "MiB" },
          ]
        : []),
      ...(memory ? [{ label: "Server memory per open stream (RSS)", value: memory.perStreamKiB, unit: "KiB" }] : []),
    ],
    targets: [
      { label: "push p95 < 50 ms", met: push95 < 50, detail: `p95 ${push95.toFixed(0)} ms (p50 ${push50.toFixed(0)} ms), median of ${rounds} rounds, ${count("on", (l) => l.push)} cards` },
      {
        label: `copies-on push p95 ≤ 1.5× copies-off (median of ${rounds} rounds)`,
        met: push95 <= 1.5 * off95,
        detail: `${(push95 / off95).toFixed(2)}× (p95 ${push95.toFixed(0)} vs ${off95.toFixed(0)} ms; per round on ${perRound("on", (l) => l.push, 95)}, off ${perRound("off", (l) => l.push, 95)} ms); p50 ${push50.toFixed(0)} vs ${off50.toFixed(0)} ms`,
      },
      {
        label: `uploads checked beside do not slow the push: p95 ≤ ${UPLOADS_BESIDE_TARGET}× the same app's without them (median of ${rounds} rounds)`,
        met: beside95 <= UPLOADS_BESIDE_TARGET * push95 && uploadsKept > 0,
        detail: `${(beside95 / push95).toFixed(2)}× (p95 ${beside95.toFixed(0)} vs ${push95.toFixed(0)} ms; per round ${perRound("beside", (l) => l.push, 95)} ms); p50 ${beside50.toFixed(0)} vs ${push50.toFixed(0)} ms; ${uploadsKept} of ${uploads.length} uploads kept (${describeCodes(countStatuses(uploads))}; 503 is the media pool answering busy, with Retry-After)`,
      },
      {
        label: "push p95 ≤ 1.5× the bare-stream floor's p95 (same run)",
        met: push95 <= 1.5 * floor95,
        detail: `${(push95 / floor95).toFixed(2)}× (p95 ${push95.toFixed(0)} vs ${floor95.toFixed(0)} ms); p50 ${(push50 / floor50).toFixed(2)}× (${push50.toFixed(0)} vs ${floor50.toFixed(0)} ms)`,
      },
      { label: "push ≥ 10× better than polling at p50", met: poll50 / push50 >= 10, detail: `polling p50 ${poll50.toFixed(0)} ms / push p50 ${push50.toFixed(0)} ms = ${(poll50 / push50).toFixed(1)}×` },
      ...(idleError ? [{ label: "idle tabs measured", met: false, detail: idleError.replaceAll("|", "\\|") }] : []),
      ...(idle
        ? [{ label: "idle tabs make no requests besides their streams", met: idle.other === 0, detail: `${idle.other} requests in ${IDLE_MS / 1000} s${idle.otherUrls.length ? ` (${idle.otherUrls.join(", ")})` : ""}; ${idle.streams} stream (re)connections; ${idle.prefetches} link prefetches (once per page, when its browser is idle)` }]
        : []),
    ],
    notes: [
      "Push: the callback's write publishes an event carrying the card (state, credits, result URLs, error); the page's EventSource hears it and React renders the card from it, with no request. The latency is that chain end to end: callback HTTP, the outcome write, the event, render.",
      `Floor: an HTTP server in the bench process answers a static page and an event stream; a POST to it writes one event, on which the page sets a badge's text (no framework, no request). Timed the same way (from just before the POST to the same MutationObserver), ${TASKS} pokes ${SPACING_MS} ms apart, in its own context of the same Chromium right after the app's pages close, so both share the machine's load of the moment.`,
      "Polling: the page reads the list every 3 s while anything is pending, so a result waits on average half an interval plus the same read and render.",
      "The tail, measured (at 83bb838, SQLite, `BENCH_LIVE_LATENCY_ONLY=1`, with a temporary log of each callback's arrival in the route and its end, joined with the simulator's send times, and a CPU profile of `next start` loaded by `--import`): callback → published was p50 9–18 ms, and 6, 18 and 12 of the 40 callbacks in three runs took over 60 ms (at most 733 ms, most of it before the route ran). In the profiled run, the app's main thread was busy for most of the time in 7 of those 12: spawning FFmpeg for an earlier result's still (60 and 80 ms inside `execFile`, twice), a garbage collection of 123 ms after a copy's download, Prisma's query compiler (29 ms for one query; WebAssembly on the main thread), or Next handling other requests (three). In the other 5 it was mostly idle: the time went to the other processes on the two cores. A still is two processes (`ffprobe`, then `ffmpeg`), and each spawn forks the server, which costs in proportion to its memory: `execFile` of `/bin/true` from Node 20 took 4 ms at 229 MiB RSS and 31 ms at 524 MiB. Over the whole run, spawning was 7 % of the app's busy time and Prisma 15 %. Tried, and no better than the noise: FFmpeg at niceness 10 (p95 188, 186 and 386 ms, against 275 and 161 ms at the default, in alternating runs). Running copies and stills in a process of their own would take this work off the request path, at the price of one more process for every deployment to run. Since then, copies and stills each take a slot of one bounded media pool per process (lib/media/media-pool.ts, \`MEDIA_CONCURRENCY\`, by default the cores up to 4: 2 here) and uploads no longer spawn FFmpeg; stills' \`ffprobe\` and \`ffmpeg\` are started by the tool host (lib/media/tool-host.ts), a Node process of its own near 40 MB at nice 10, so the app's thread no longer forks its own memory for them (19 ms a fork at 547 MB, measured on Node 20 here). The rounds with copies off (no download, no still) against those with copies on, alternating in the same run, measure what that media work still costs the push.",
      memory
        ? `Memory per stream: ${memory.opened}/${MEMORY_STREAMS} streams opened, RSS ${(memory.before / 1024).toFixed(0)} → ${(memory.after / 1024).toFixed(0)} MiB. RSS includes the garbage collector's slack, so this is an upper bound of what one stream keeps (a ReadableStream, a listener, two timers).`
        : idleError
          ? "Memory per stream: not measured, as the idle tabs before it could not all be opened."
          : !idle
            ? "Idle tabs and memory per stream: not measured (BENCH_LIVE_LATENCY_ONLY=1)."
            : "Memory per stream: the app's process was not found (`ss` unavailable), so it was not measured.",
      "A hidden tab closes its stream (browsers open at most six HTTP/1.1 connections per host, shared by all tabs) and reconnects with Last-Event-ID when shown; idle tabs here are all visible.",
    ],
  };
}
