// Screenshots of the gallery, the viewer and the detail page at 390 px and
// 1280 px, light and dark, in the empty, pending (with its progress bar),
// success and failure states, for a person to look at (and a few to commit to
// docs/screenshots/).
//
//   node --import tsx scripts/screenshots.ts
//
// Against a running app and its simulator, given by env:
//   BASE_URL        the app           (default http://127.0.0.1:3000)
//   SIMULATOR_URL   its simulator     (default http://127.0.0.1:4010)
//   OUT_DIR         where PNGs go     (default test-results/screenshots)
//   CHROMIUM        the browser       (default /usr/bin/chromium)
// The empty state is captured only while the gallery is empty (a fresh
// database); the script then creates one generation per state through the API.
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { SimulatorControl } from "../tests/support/simulator-control";

const BASE_URL = process.env.BASE_URL ?? "http://127.0.0.1:3000";
const SIMULATOR_URL = process.env.SIMULATOR_URL ?? "http://127.0.0.1:4010";
const OUT_DIR = process.env.OUT_DIR ?? "test-results/screenshots";
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

const VIEWPORTS = [
  { name: "390", width: 390, height: 844 },
  { name: "1280", width: 1280, height: 900 },
] as const;
const SCHEMES = ["light", "dark"] as const;

// Scenarios match on a word of the prompt, so the prompts read naturally.
const PROMPTS = {
  earlier: "Close-up of coffee being poured into a glass cup, steam rising in the morning light",
  portrait: "A lighthouse on a cliff at night, its beam sweeping through the fog, vertical",
  success: "A paper boat drifting down a rain-soaked street at dusk, reflections in the puddles",
  pending: "Slow aerial shot over a misty pine forest at sunrise, birds lifting off the canopy",
  failure: "A red fox curled up asleep in fresh snow under a lantern, soft falling flakes",
};

type Created = { id: string; state: string };

async function main() {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const simulator = new SimulatorControl(SIMULATOR_URL);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  try {
    const existing = await api<{ items: unknown[] }>("/api/generations?limit=1");
    if (existing.items.length === 0) await captureAll(browser, "empty", "/");
    else console.warn("The gallery is not empty: skipping the empty state (start from a fresh database to capture it).");

    await simulator.scenario({ match: "pine forest", pendingMs: 600_000 });
    await simulator.scenario({ match: "red fox", outcome: "failure", failCode: "content_policy", failMsg: "The prompt was flagged by the content filter." });
    // Two finished first, in about 40 s: the history the pending card's progress bar is measured
    // against, so the first shots show a bar on track and the later ones "taking longer than usual".
    await simulator.scenario({ match: "coffee", pendingMs: 40_000 });
    await simulator.scenario({ match: "lighthouse", pendingMs: 40_000 });
    const earlier = [await create(PROMPTS.earlier), await create(PROMPTS.portrait, "9:16")];
    for (const { id } of earlier) await waitForState(id, "SUCCESS", 120);
    const success = await create(PROMPTS.success);
    const pending = await create(PROMPTS.pending);
    const failure = await create(PROMPTS.failure);
    await waitForState(success.id, "SUCCESS");
    await waitForState(failure.id, "FAILURE");

    await captureAll(browser, "gallery", "/");
    await captureAll(browser, "pending", "/?state=PENDING");
    await captureAll(browser, "success", "/?state=SUCCESS");
    await captureAll(browser, "failure", "/?state=FAILURE");
    await captureAll(browser, "viewer", "/", { open: PROMPTS.success });
    await captureAll(browser, "detail-success", `/generations/${success.id}`);
    await captureAll(browser, "detail-pending", `/generations/${pending.id}`);
    await captureAll(browser, "detail-failure", `/generations/${failure.id}`);

    // The credit balance is cached for a few seconds on the server: wait it out.
    await simulator.outage(503, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    await captureAll(browser, "gateway-down", "/", { only: "1280" });
    await simulator.endOutage();
  } finally {
    await browser.close();
  }
  console.log(`Screenshots in ${OUT_DIR}`);
}

/** `open`: a prompt whose video is opened in the viewer before the shot. */
async function captureAll(browser: Browser, name: string, url: string, { only, open }: { only?: string; open?: string } = {}) {
  for (const viewport of VIEWPORTS) {
    if (only && viewport.name !== only) continue;
    for (const colorScheme of SCHEMES) {
      const context = await browser.newContext({ viewport, colorScheme, deviceScaleFactor: 1, reducedMotion: "reduce" });
      const page = await context.newPage();
      await page.goto(new URL(url, BASE_URL).toString(), { waitUntil: "networkidle" });
      await settle(page);
      if (open) {
        await page.getByRole("article", { name: `Generation: ${open}` }).getByRole("button", { name: /in the viewer/ }).click();
        await page.getByRole("dialog").locator("video").evaluate((v: HTMLVideoElement) => new Promise((resolve) => (v.readyState >= 2 ? resolve(null) : v.addEventListener("loadeddata", resolve, { once: true }))));
        await page.waitForTimeout(300);
      }
      const file = path.join(OUT_DIR, `${name}-${viewport.name}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: !open });
      console.log(file);
      await context.close();
    }
  }
}

/** Waits for the balance and for every video's first frame, so a shot shows what a user sees. */
async function settle(page: Page) {
  await page.getByTestId("credits-balance").filter({ hasNotText: "…" }).waitFor();
  // Browsers paint a video's first frame only once it has been on screen.
  for (const video of await page.locator("video").all()) await video.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForFunction(
    () => [...document.querySelectorAll("video")].every((v) => v.readyState >= 2 || v.error !== null),
    undefined,
    { timeout: 10_000 },
  ).catch(() => console.warn("  some videos did not load a frame"));
  await page.waitForTimeout(300);
}

async function create(prompt: string, aspectRatio = "16:9"): Promise<Created> {
  return api<Created>("/api/generations", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 5, aspect_ratio: aspectRatio } }),
  });
}

async function waitForState(id: string, state: string, seconds = 30) {
  for (let i = 0; i < seconds * 2; i++) {
    if ((await api<{ state: string }>(`/api/generations/${id}`)).state === state) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`generation ${id} never reached ${state}`);
}

async function api<T>(pathname: string, init?: RequestInit): Promise<T> {
  const response = await fetch(new URL(pathname, BASE_URL), init);
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${pathname} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
