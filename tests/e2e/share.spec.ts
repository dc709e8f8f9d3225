// Sharing a video, as two people do: the owner shares a Ready video from its
// card; someone else, in a browser with none of the owner's cookies, opens the
// link and the video plays (by byte ranges); the owner stops sharing and the
// page, the file and the player all answer 404 at once.
import AxeBuilder from "@axe-core/playwright";
import type { Page, Response } from "@playwright/test";
import { expect, test } from "./fixtures";

/** axe-core's findings (WCAG 2.1 A/AA and best practices), short enough to read in a failure. */
async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
}

test("a stranger's browser plays a shared video by its link; after Stop sharing, page, file and player are 404", async ({ gallery, simulator, page, browser }) => {
  // A generation, two browsers, two axe runs: on a loaded 2-core machine that outlasts the 60 s default.
  test.slow();
  const prompt = simulator.prompt("A heron lifting off a misty lake at dawn");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const card = gallery.card(prompt);
  // Offered once the kit's copy is stored: the public link serves that copy.
  const share = card.getByRole("button", { name: /^Share/ });
  await expect(share).toBeVisible({ timeout: 30_000 });
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await card.screenshot({ path: test.info().outputPath("card-share-1280.png") });
  await share.click();
  await expect(card.getByRole("checkbox", { name: "Show the prompt" })).toBeChecked();
  await card.getByRole("button", { name: /^Make public link/ }).click();
  const box = card.getByRole("textbox", { name: /Public link/ });
  await expect(box).toHaveValue(/\/v\/[A-Za-z0-9_-]{43}$/);
  const url = await box.inputValue();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await expect(page.getByRole("status").filter({ hasText: "Public link made and copied." })).toBeAttached();
  await card.screenshot({ path: test.info().outputPath("card-shared-1280.png") });
  expect(await violations(page)).toEqual([]);
  // The detail page shows the same link.
  await gallery.openDetails(prompt);
  await expect(page.getByRole("textbox", { name: /Public link/ })).toHaveValue(url);
  await page.goBack();

  // A second browser: no cookie of the owner's, nor any other.
  const stranger = await browser.newContext();
  expect(await stranger.cookies()).toEqual([]);
  const visitor = await stranger.newPage();
  const fileAnswers: Response[] = [];
  visitor.on("response", (response) => {
    if (new URL(response.url()).pathname.endsWith("/video")) fileAnswers.push(response);
  });
  const opened = await visitor.goto(url);
  expect(opened?.status()).toBe(200);
  await expect(visitor.getByText(prompt)).toBeVisible();
  await expect(visitor.getByText("Alpha 2.5 · 480p")).toBeVisible();
  const video = visitor.locator("main video");
  await video.evaluate((v: HTMLVideoElement) => {
    v.muted = true;
    return v.play();
  });
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(3);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0)).toBe(true);
  // The browser read the file by byte ranges, and the server answered them.
  const ranged = fileAnswers.filter((r) => r.status() === 206);
  expect(ranged.length).toBeGreaterThan(0);
  expect(await ranged[0]!.request().headerValue("range")).toMatch(/^bytes=\d+-\d*$/);
  expect(await ranged[0]!.headerValue("content-type")).toBe("video/mp4");
  await video.evaluate((v: HTMLVideoElement) => v.pause());
  await visitor.screenshot({ path: test.info().outputPath("public-page-1280.png"), fullPage: true });
  expect(await violations(visitor)).toEqual([]);

  // The player X frames: the video alone, and it plays too.
  await visitor.goto(`${url}/embed`);
  const embedded = visitor.locator("video");
  await embedded.evaluate((v: HTMLVideoElement) => {
    v.muted = true;
    return v.play();
  });
  await expect.poll(() => embedded.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0)).toBe(true);
  await embedded.evaluate((v: HTMLVideoElement) => v.pause());
  await visitor.setViewportSize({ width: 640, height: 360 });
  await visitor.screenshot({ path: test.info().outputPath("embed-640.png") });

  // Narrow screens: the public page and the shared card.
  await visitor.setViewportSize({ width: 390, height: 844 });
  await visitor.goto(url);
  await visitor.screenshot({ path: test.info().outputPath("public-page-390.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: test.info().outputPath("card-shared-390.png") });

  // The owner stops sharing: from the next request on, everything is gone.
  await card.getByRole("button", { name: /^Stop sharing/ }).click();
  await expect(card.getByRole("button", { name: /^Share/ })).toBeVisible();
  await expect(box).toHaveCount(0);
  await card.screenshot({ path: test.info().outputPath("card-share-390.png") });
  for (const path of ["", "/video", "/still", "/embed"]) {
    const answer = await visitor.request.get(`${url}${path}`);
    expect([path, answer.status()]).toEqual([path, 404]);
  }
  const reopened = await visitor.goto(url);
  expect(reopened?.status()).toBe(404);
  await stranger.close();
});
