// One measured visit to a page of video tiles, in a fresh system Chromium:
// when the first screen's tiles all show a picture, a scroll to the last
// tile, then what the visit cost: bytes on the wire (from the network log),
// renderer memory, and the media players left. A tile is any element with a
// `data-still` attribute (the gallery's VideoTile, and the image grid's tiles
// built from its geometry by imageGridHtml).
import fs from "node:fs";
import path from "node:path";
import type { CDPSession, Page } from "@playwright/test";
import { emulateNetwork, launchWithNetLog, rendererPssKiB, type Network } from "./chromium";
import { bytesPerRequest } from "./net-log";

export const VIEWPORT = { width: 1280, height: 720 };
/**
 * A quick flick: two screens every 100 ms. Every tile still comes within
 * Chromium's lazy-loading distance (1,250 px or more) on the way, and the
 * gallery's next page loads as its end nears.
 */
const WHEEL_STEP = 2 * VIEWPORT.height;
const WHEEL_PAUSE_MS = 100;
const SETTLE_MS = 500;
const START_UP_MS = 500;

export type Visit = {
  url: string;
  cookie: string;
  network: Network;
  /** Tiles the page holds once scrolled to its end. */
  tiles: number;
  /** Where the cursor rests while scrolling: off the tiles, or over them (hover previews start and stop as tiles pass under it). */
  cursor: { x: number; y: number } | null;
  netLog: string;
  screenshot?: string;
};

export type Geometry = { width: number; height: number; tiles: { src: string; left: number; top: number; width: number; height: number }[] };

export type VisitResult = {
  /** From navigation start until every tile on the first screen shows its still (or a video frame). */
  framedMs: number;
  framedTiles: number;
  /** From navigation start to the first byte of the HTML. */
  ttfbMs: number;
  bytes: { total: number; stills: number; video: number; page: number };
  requests: number;
  /** Tiles whose still was showing after the scroll. */
  stillsShown: number;
  videoElements: number;
  /** Created and not yet destroyed, as Chromium's media log reports them. */
  livePlayers: number;
  /** The same after a forced garbage collection: a player whose <video> left the DOM lives until its element is collected. */
  livePlayersAfterGc: number;
  playersCreated: number;
  rendererPssKiB: number;
  renderers: number;
  geometry: Geometry;
};

// Installed before the page's own scripts. "Shows a picture": the tile's <img> is loaded
// (complete, with a width) or its <video> has a frame (readyState ≥ HAVE_CURRENT_DATA).
const WATCH_FIRST_SCREEN = `(() => {
  const onScreen = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth; };
  const framed = (tile) => { const img = tile.querySelector("img"); const video = tile.querySelector("video"); return (img && img.complete && img.naturalWidth > 0) || (video && video.readyState >= 2); };
  const check = () => {
    if (document.readyState !== "loading") {
      const tiles = [...document.querySelectorAll("[data-still]")].filter(onScreen);
      if (tiles.length > 0 && tiles.every(framed)) {
        window.__framed = { ms: performance.now(), tiles: tiles.length, ttfb: performance.getEntriesByType("navigation")[0]?.responseStart ?? NaN };
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})()`;

const SCROLL_STATE = `({ tiles: document.querySelectorAll("[data-still]").length, atEnd: scrollY + innerHeight >= document.documentElement.scrollHeight - 4 })`;
const STILLS_SHOWN = `[...document.querySelectorAll("[data-still] img")].filter((img) => img.complete && img.naturalWidth > 0).length`;
const GEOMETRY = `({
  width: document.documentElement.scrollWidth,
  height: document.documentElement.scrollHeight,
  tiles: [...document.querySelectorAll("[data-still]")].map((el) => {
    const r = el.getBoundingClientRect();
    return { src: el.querySelector("img")?.getAttribute("src") ?? "", left: r.left + scrollX, top: r.top + scrollY, width: r.width, height: r.height };
  }),
})`;

export async function visitTiles(visit: Visit): Promise<VisitResult> {
  const browser = await launchWithNetLog(visit.netLog);
  let seen: Omit<VisitResult, "bytes" | "requests">;
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const [name, value] = [visit.cookie.slice(0, visit.cookie.indexOf("=")), visit.cookie.slice(visit.cookie.indexOf("=") + 1)];
    // Path "/": a cookie set for the grid's own URL would not reach /api/media.
    await context.addCookies([{ name, value, url: new URL("/", visit.url).href, httpOnly: true, sameSite: "Lax" }]);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const players = await watchPlayers(cdp);
    await emulateNetwork(cdp, visit.network);
    await page.addInitScript(WATCH_FIRST_SCREEN);
    // A visitor's browser is already running: its start-up work (on the same two cores as the server) ends before the visit.
    await page.waitForTimeout(START_UP_MS);
    await page.goto(visit.url, { waitUntil: "commit", timeout: 60_000 });
    const framed = (await (await page.waitForFunction("window.__framed", undefined, { timeout: 60_000, polling: 50 })).jsonValue()) as { ms: number; tiles: number; ttfb: number };
    if (visit.screenshot) await page.screenshot({ path: visit.screenshot });
    if (visit.cursor) await page.mouse.move(visit.cursor.x, visit.cursor.y);
    await scrollToEnd(page, visit.tiles);
    const stillsShown = await waitForStills(page, visit.tiles);
    await page.waitForTimeout(SETTLE_MS);
    const memory = await rendererPssKiB(browser, page);
    const livePlayers = players.live();
    await cdp.send("HeapProfiler.collectGarbage");
    await page.waitForTimeout(300);
    seen = {
      framedMs: framed.ms,
      framedTiles: framed.tiles,
      ttfbMs: framed.ttfb,
      stillsShown,
      videoElements: (await page.evaluate("document.querySelectorAll('video').length")) as number,
      livePlayers,
      livePlayersAfterGc: players.live(),
      playersCreated: players.created(),
      rendererPssKiB: memory.kib,
      renderers: memory.processes,
      geometry: (await page.evaluate(GEOMETRY)) as Geometry,
    };
  } finally {
    await browser.close();
  }
  const log = bytesPerRequest(visit.netLog);
  fs.rmSync(visit.netLog, { force: true });
  const bytes = { total: log.unattributed, stills: 0, video: 0, page: log.unattributed };
  for (const { url, bytes: count } of log.requests) {
    const { pathname } = new URL(url);
    const kind = /^\/api\/media\/[^/]+\/still$/.test(pathname) ? "stills" : /^\/api\/media\/[^/]+$/.test(pathname) ? "video" : "page";
    bytes[kind] += count;
    bytes.total += count;
  }
  return { ...seen, bytes, requests: log.requests.length };
}

/** Wheel steps at the cursor (the gallery loads its next page as its end nears) until the last tile is in and the page ends. */
async function scrollToEnd(page: Page, tiles: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const state = (await page.evaluate(SCROLL_STATE)) as { tiles: number; atEnd: boolean };
    if (state.tiles >= tiles && state.atEnd) return;
    if (Date.now() > deadline) throw new Error(`scrolled for 2 minutes: ${state.tiles}/${tiles} tiles, ${state.atEnd ? "" : "not "}at the end`);
    await page.mouse.wheel(0, WHEEL_STEP);
    await page.waitForTimeout(WHEEL_PAUSE_MS);
  }
}

/** Every tile it scrolled past has started loading its still: waits (a while) for them all to show. */
async function waitForStills(page: Page, tiles: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const shown = (await page.evaluate(STILLS_SHOWN)) as number;
    if (shown >= tiles || Date.now() > deadline) return shown;
    await page.waitForTimeout(100);
  }
}

/** Chromium's media log (CDP Media domain): each player's creation and destruction. */
async function watchPlayers(cdp: CDPSession) {
  const created = new Set<string>();
  const destroyed = new Set<string>();
  cdp.on("Media.playerEventsAdded", ({ playerId, events }) => {
    for (const { value } of events) {
      if (value.includes('"kWebMediaPlayerCreated"')) created.add(playerId);
      if (value.includes('"kWebMediaPlayerDestroyed"')) destroyed.add(playerId);
    }
  });
  await cdp.send("Media.enable");
  return { created: () => created.size, live: () => [...created].filter((id) => !destroyed.has(id)).length };
}

/** The baseline: the same stills as plain lazy <img> tiles at the same places, sizes and fit, on a page as tall, and nothing else. */
export function imageGridHtml({ width, height, tiles }: Geometry): string {
  const px = (n: number) => `${Math.round(n * 100) / 100}px`;
  const items = tiles.map(
    (t) =>
      `<div class="tile" data-still="image" style="left:${px(t.left)};top:${px(t.top)};width:${px(t.width)};height:${px(t.height)}"><img src="${t.src}" alt="" loading="lazy" decoding="async"></div>`,
  );
  return [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Image grid</title>`,
    `<style>body{margin:0}main{position:relative;width:${px(width)};height:${px(height)}}.tile{position:absolute;overflow:hidden;background:#000}.tile img{display:block;width:100%;height:100%;object-fit:contain}</style>`,
    `</head><body><main>`,
    ...items,
    `</main></body></html>`,
  ].join("\n");
}

export const netLogPath = (dir: string, name: string) => path.join(dir, `net-log-${name}.json`);
