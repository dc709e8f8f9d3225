// 5. The gallery page: the JavaScript its HTML makes a browser load (gzip),
// and time to first render in the system Chromium, both beside the app's own
// not-found page (same root layout and framework, no gallery, no form).
import { chromium, type Browser } from "@playwright/test";
import { gzipSync } from "node:zlib";
import { benchViewerCookie } from "../db";
import type { Section } from "../report";
import type { Stack } from "../stack";

const LOADS = 7;
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

type Paint = { fcp: number; ttfb: number };

const PAINT_SCRIPT = `new Promise((resolve) => {
  const nav = performance.getEntriesByType("navigation")[0];
  const done = (fcp) => resolve({ fcp, ttfb: nav ? nav.responseStart - nav.startTime : NaN });
  new PerformanceObserver((list) => {
    const entry = list.getEntriesByName("first-contentful-paint")[0];
    if (entry) done(entry.startTime);
  }).observe({ type: "paint", buffered: true });
  setTimeout(() => done(NaN), 5000);
})`;

export async function benchGalleryPage(stack: Stack): Promise<Section> {
  const galleryUrl = `${stack.appUrl}/`;
  const baselineUrl = `${stack.appUrl}/bench-not-found`;
  // As the seeded rows' owner: the gallery is per owner.
  const cookie = benchViewerCookie(stack.webhookSecret);
  const [galleryJs, baselineJs] = [await firstLoadJs(galleryUrl, cookie), await firstLoadJs(baselineUrl, cookie)];

  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  const gallery: Paint[] = [];
  const baseline: Paint[] = [];
  try {
    await measurePaint(browser, galleryUrl, cookie); // warm-up: server-side caches and the browser's own start-up
    await measurePaint(browser, baselineUrl, cookie);
    for (let i = 0; i < LOADS; i++) {
      gallery.push(await measurePaint(browser, galleryUrl, cookie));
      baseline.push(await measurePaint(browser, baselineUrl, cookie));
    }
  } finally {
    await browser.close();
  }
  const fcp = median(gallery.map((p) => p.fcp));
  const baseFcp = median(baseline.map((p) => p.fcp));
  const label = "not-found page of the same app";
  const ttfb = median(gallery.map((p) => p.ttfb));
  const baseTtfb = median(baseline.map((p) => p.ttfb));

  return {
    title: "5. Gallery page",
    setup: `\`GET /\` with the 10 000 generations of benchmark 4 (the page renders the newest 24). JavaScript: every script the HTML makes a modern browser fetch (\`<script src>\` except \`noModule\` fallbacks, and \`<link rel="preload" as="script">\`), fetched and gzipped (level 9) one by one. Paint: system Chromium (headless, playwright), a fresh browser context (cold cache) per load, median of ${LOADS} alternating loads after one warm-up each; baseline: a URL that does not exist, answered by Next's not-found page inside the same root layout.`,
    figures: [
      { label: "First-load JS (gzip)", value: galleryJs.gzip / 1024, unit: "KiB", baseline: { label, value: baselineJs.gzip / 1024 } },
      { label: "First-load JS (raw)", value: galleryJs.raw / 1024, unit: "KiB", baseline: { label, value: baselineJs.raw / 1024 } },
      { label: "Script files", value: galleryJs.files, unit: "", baseline: { label, value: baselineJs.files } },
      { label: "HTML (with the inline RSC payload)", value: galleryJs.html / 1024, unit: "KiB", baseline: { label, value: baselineJs.html / 1024 } },
      { label: "First contentful paint (median)", value: fcp, unit: "ms", baseline: { label, value: baseFcp } },
      { label: "Time to first byte (median)", value: ttfb, unit: "ms", baseline: { label, value: baseTtfb } },
    ],
    targets: [
      { label: "first-load JS reported", met: galleryJs.files > 0, detail: `${(galleryJs.gzip / 1024).toFixed(1)} KiB gzip in ${galleryJs.files} files, ${(galleryJs.gzip / baselineJs.gzip).toFixed(2)}× the framework floor` },
      { label: "time to first render reported", met: Number.isFinite(fcp) && fcp > 0, detail: `FCP ${fcp.toFixed(0)} ms, ${(fcp / baseFcp).toFixed(2)}× the not-found page (spread ${spread(gallery.map((p) => p.fcp))})` },
    ],
    notes: [
      `The gallery adds ${((galleryJs.gzip - baselineJs.gzip) / 1024).toFixed(1)} KiB gzip of its own (the form, the gallery, SWR) to the ${(baselineJs.gzip / 1024).toFixed(1)} KiB the framework loads on any page (React, the App Router runtime): the page's JavaScript is close to the floor.`,
      `First render: the page is dynamic (it reads the newest generations on every request), so its HTML waits for the query and the server render: median time to first byte ${ttfb.toFixed(0)} ms against ${baseTtfb.toFixed(0)} ms for the not-found page, which needs no query. That explains ${(ttfb - baseTtfb).toFixed(0)} ms of the ${(fcp - baseFcp).toFixed(0)} ms between their first paints; the rest is the browser parsing and laying out a larger document (${(galleryJs.html / 1024).toFixed(0)} KiB of HTML, 24 cards with video players) with software rendering (--disable-gpu) on a shared CPU, which this benchmark does not break down further.`,
    ],
  };
}

/** The scripts a modern browser fetches for the page: `<script src>` (not `noModule` fallbacks) and `<link rel="preload" as="script">`. */
async function firstLoadJs(url: string, cookie: string): Promise<{ files: number; raw: number; gzip: number; html: number }> {
  const html = await (await fetch(url, { headers: { Cookie: cookie } })).text();
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]).filter((tag) => !/\snomodule\b/i.test(tag));
  const preloads = [...html.matchAll(/<link\b[^>]*>/g)].map((m) => m[0]).filter((tag) => /rel="preload"/.test(tag) && /as="script"/.test(tag));
  const sources = new Set(
    [...scripts.map((tag) => /\ssrc="([^"]+)"/.exec(tag)?.[1]), ...preloads.map((tag) => /\shref="([^"]+)"/.exec(tag)?.[1])].filter(
      (src): src is string => src !== undefined && /\.js(\?|$)/.test(src),
    ),
  );
  let raw = 0;
  let gzip = 0;
  for (const src of sources) {
    const body = Buffer.from(await (await fetch(new URL(src, url))).arrayBuffer());
    raw += body.byteLength;
    gzip += gzipSync(body, { level: 9 }).byteLength;
  }
  return { files: sources.size, raw, gzip, html: Buffer.byteLength(html) };
}

async function measurePaint(browser: Browser, url: string, cookie: string): Promise<Paint> {
  const context = await browser.newContext();
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
  await context.addCookies([{ name, value, url, httpOnly: true, sameSite: "Lax" }]);
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    // A string, not a function: tsx would wrap a function's inner helpers in its own __name(), unknown in the page.
    return await page.evaluate<Paint>(PAINT_SCRIPT);
  } finally {
    await context.close();
  }
}

function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const spread = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return `${Math.min(...finite).toFixed(0)}–${Math.max(...finite).toFixed(0)} ms`;
};
