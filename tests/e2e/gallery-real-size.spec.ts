// The gallery at real size: 60 finished generations whose results are clips
// of real size (1–2.7 MB, simulator/clips.ts), each stored with its still.
// Three are submitted for real (16:9 and 9:16 at 720p, 1:1 at 480p: the
// visitor's spend cap allows no more); the rest are rows planted beside them
// that share their stored copies and stills, as a long-lived gallery's would.
// The placeholder of a result with no still: tests/e2e/stills.spec.ts.
import { randomBytes } from "node:crypto";
import { executeInAppDatabaseTogether } from "./database";
import { expect, test } from "./fixtures";

const TOTAL = 60;
const SUBMITTED = [
  { model: "alpha-2.5-text-to-video", aspect_ratio: "16:9" },
  { model: "alpha-2.5-text-to-video", aspect_ratio: "9:16" },
  { model: "alpha-2.5-text-to-video-480p", aspect_ratio: "1:1" },
];

const GENERATION_COLUMNS = ["model", "state", "input", "resultUrls", "creditsConsumed", "ownerId", "costEstimate", "callbackEnabled", "createdAt", "updatedAt", "completedAt"];
const COPY_COLUMNS = ["position", "sourceUrl", "state", "storageKey", "contentType", "size", "sha256", "stillKey", "stillCheckedAt", "attempts", "nextRunAt", "createdAt", "updatedAt", "completedAt"];
const quoted = (columns: string[]) => columns.map((c) => `"${c}"`).join(", ");

/**
 * A finished generation planted as a copy of `id`: same owner, same stored
 * video and still. Both rows in one transaction: a SUCCESS generation seen
 * without its copy row gets one from the app's copy scheduler, and the
 * planted copy then collides with it (seen on PostgreSQL).
 */
async function plantLike(id: string, n: number) {
  const cloneId = `c${randomBytes(12).toString("hex")}`;
  await executeInAppDatabaseTogether([
    [
      `INSERT INTO "Generation" ("id", "prompt", "promptSearch", ${quoted(GENERATION_COLUMNS)})
       SELECT ?, "prompt" || ?, "promptSearch" || ?, ${quoted(GENERATION_COLUMNS)} FROM "Generation" WHERE "id" = ?`,
      [cloneId, ` (take ${n})`, ` (take ${n})`, id],
    ],
    [
      `INSERT INTO "MediaCopy" ("id", "generationId", ${quoted(COPY_COLUMNS)})
       SELECT ?, ?, ${quoted(COPY_COLUMNS)} FROM "MediaCopy" WHERE "generationId" = ?`,
      [`m${randomBytes(12).toString("hex")}`, cloneId, id],
    ],
  ]);
}

test("60 real-size videos: stills everywhere, at most 2 players after a full scroll, hover plays, the viewer plays it whole", async ({ gallery, simulator, page }) => {
  test.setTimeout(180_000);
  const prompts = SUBMITTED.map((s) => simulator.prompt(`A ${s.aspect_ratio} harbour at dawn`));
  const ids: string[] = [];
  for (const [i, { model, aspect_ratio }] of SUBMITTED.entries()) {
    const created = await page.request.post("/api/generations", { data: { model, input: { prompt: prompts[i], duration: 2, aspect_ratio } } });
    expect(created.status()).toBe(201);
    ids.push(((await created.json()) as { id: string }).id);
  }
  await gallery.goto();
  await page.getByRole("searchbox", { name: "Search prompts" }).fill(simulator.marker);
  // Stored, each with its still, before anything is planted beside it.
  for (const prompt of prompts) await expect(gallery.card(prompt).locator("img")).toHaveAttribute("src", /^\/api\/media\/\w+\/still$/, { timeout: 60_000 });
  for (let n = 1; n <= TOTAL - SUBMITTED.length; n++) await plantLike(ids[n % ids.length]!, n);

  await page.reload();
  const cards = page.getByRole("article");
  // Scrolled to the end: the gallery loads further pages as its end comes into view.
  await expect(async () => {
    await page.mouse.wheel(0, 20_000);
    expect(await cards.count()).toBe(TOTAL);
  }).toPass({ timeout: 60_000 });
  // Every tile shows its still; past the first screen's 6 they load lazily.
  await expect(cards.locator("img[src$='/still']")).toHaveCount(TOTAL);
  await expect(cards.locator("img[loading=lazy][src$='/still']")).toHaveCount(TOTAL - 6);
  expect(await page.evaluate(() => document.querySelectorAll("video").length)).toBeLessThanOrEqual(2);
  await page.screenshot({ path: test.info().outputPath("gallery-60-end.png") });

  await page.evaluate(() => window.scrollTo(0, 0));
  const first = cards.first().locator("img");
  await expect.poll(() => first.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  await page.screenshot({ path: test.info().outputPath("gallery-60-top.png") });

  // A pointer sweeping across the first row (as across a grid scrolling under
  // it) starts no player and downloads no video: a preview needs it to rest.
  const videoRequests: string[] = [];
  page.on("request", (request) => {
    if (/\/api\/media\/\w+$/.test(new URL(request.url()).pathname)) videoRequests.push(request.url());
  });
  const tiles = cards.getByRole("button", { name: /in the viewer/ });
  const from = (await tiles.nth(0).boundingBox())!;
  const to = (await tiles.nth(2).boundingBox())!;
  // The page's clock stands still during the sweep, so a slow machine cannot
  // make the pointer rest on a tile longer than the test means it to.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1_000);
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
  await page.mouse.move(0, 0);
  await page.clock.runFor(2_000);
  expect(await page.evaluate(() => document.querySelectorAll("video").length)).toBe(0);
  expect(videoRequests).toEqual([]);

  // Resting on a tile plays it: a real-size clip, from the stored copy.
  const tile = tiles.first();
  await tile.hover();
  await page.clock.runFor(500);
  await page.clock.resume();
  const preview = tile.locator("video");
  await expect(preview).toHaveAttribute("src", /^\/api\/media\/\w+$/);
  await expect.poll(() => preview.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0)).toBe(true);
  expect(await page.evaluate(() => document.querySelectorAll("video").length)).toBeLessThanOrEqual(2);
  await page.mouse.move(0, 0);

  // The viewer plays the whole 5 s clip.
  await tile.click();
  const player = page.getByRole("dialog").locator("video");
  await expect(player).toHaveAttribute("poster", /\/still$/);
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(3);
  expect(await player.evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(4.5);
  // Played through to its last half second (a timeupdate there, or its end: it may loop).
  await player.evaluate(
    (v: HTMLVideoElement) =>
      new Promise<void>((resolve) => {
        const check = () => (v.ended || v.currentTime > 4.5) && resolve();
        v.addEventListener("timeupdate", check);
        v.addEventListener("ended", check);
        check();
      }),
  );
});
