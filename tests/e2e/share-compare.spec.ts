// Sharing a comparison, as two people do: the owner compares two models and
// shares the comparison from its view; someone else, in a browser with none
// of the owner's cookies, opens the link, sees the two videos side by side
// with their models and plays them together (by byte ranges); the owner stops
// sharing and the page and its files answer 404 at once. Screenshots of the
// public page at 1280 and 390 px, light and dark.
import AxeBuilder from "@axe-core/playwright";
import type { Page, Response } from "@playwright/test";
import { expect, test } from "./fixtures";

const MODELS = ["Alpha 2.5 · 480p", "Alpha 2.5"];

/** axe-core's findings (WCAG 2.1 A/AA and best practices), short enough to read in a failure. */
async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
}

test("a stranger's browser plays a shared comparison side by side; after Stop sharing, page and files are 404", async ({ gallery, simulator, page, browser }, testInfo) => {
  // A comparison, two browsers, four screenshots and axe runs: on a loaded 2-core machine that outlasts the 60 s default.
  test.slow();
  const prompt = simulator.prompt("Two sailboats racing past a lighthouse");
  await gallery.goto();
  await page.getByRole("button", { name: "Compare models" }).click();
  const form = page.getByRole("form", { name: "Compare models" });
  for (const label of MODELS) await form.getByRole("checkbox", { name: label, exact: true }).check();
  await form.getByLabel("Prompt", { exact: true }).fill(prompt);
  await form.getByLabel("Duration (s)").fill("2");
  await form.getByRole("button", { name: "Compare 2 models" }).click();
  await expect(page).toHaveURL(/\/compare\/[^/]+$/);
  await expect(page.locator('li[data-state="SUCCESS"]')).toHaveCount(2, { timeout: 30_000 });

  await page.getByRole("listitem", { name: MODELS[1], exact: true }).getByRole("button", { name: "Mark as my pick" }).click();
  await expect(page.getByTestId("compare-status")).toHaveText("Marked as your pick.");
  // Offered once a video's copy is stored: the public page serves the kit's copies.
  const share = page.getByRole("button", { name: /^Share/ });
  await expect(share).toBeVisible({ timeout: 30_000 });
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await share.click();
  await expect(page.getByRole("checkbox", { name: "Show the prompt" })).toBeChecked();
  await page.getByRole("button", { name: /^Make public link/ }).click();
  const box = page.getByRole("textbox", { name: /Public link/ });
  await expect(box).toHaveValue(/\/c\/[A-Za-z0-9_-]{43}$/);
  const url = await box.inputValue();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await expect(page.getByTestId("compare-status")).toHaveText("Public link made and copied.");
  // The link stays with the comparison.
  await page.reload();
  await expect(box).toHaveValue(url);
  await page.screenshot({ path: testInfo.outputPath("compare-shared-1280.png"), fullPage: true });
  expect(await violations(page), "the owner's view, shared").toEqual([]);

  // A second browser: no cookie of the owner's, nor any other.
  const stranger = await browser.newContext();
  expect(await stranger.cookies()).toEqual([]);
  const visitor = await stranger.newPage();
  const fileAnswers: Response[] = [];
  visitor.on("response", (response) => {
    if (/\/c\/[^/]+\/\d\/video$/.test(new URL(response.url()).pathname)) fileAnswers.push(response);
  });
  await visitor.setViewportSize({ width: 1280, height: 800 });
  const opened = await visitor.goto(url);
  expect(opened?.status()).toBe(200);
  await expect(visitor.getByRole("heading", { name: "Comparison · 2 models" })).toBeVisible();
  await expect(visitor.getByText(prompt)).toBeVisible();
  // Side by side: one column per model, in one row at this width.
  const columns = MODELS.map((label) => visitor.getByRole("listitem", { name: label, exact: true }));
  for (const column of columns) await expect(column.getByRole("heading", { level: 2 })).toBeVisible();
  // The owner's pick is marked, and only it.
  await expect(columns[1]!.getByText("Their pick")).toBeVisible();
  await expect(visitor.getByText("Their pick")).toHaveCount(1);
  const [left, right] = await Promise.all(columns.map((column) => column.boundingBox()));
  expect(left!.y).toBe(right!.y);
  expect(left!.x + left!.width).toBeLessThanOrEqual(right!.x);

  await visitor.getByRole("button", { name: "Play all from the start" }).click();
  await expect(visitor.getByRole("status")).toHaveText("Playing 2 videos from the start.");
  const videos = visitor.locator("main video");
  await expect(videos).toHaveCount(2);
  await expect.poll(() => videos.evaluateAll((all) => all.filter((v) => !(v as HTMLVideoElement).paused && (v as HTMLVideoElement).currentTime > 0).length)).toBe(2);
  // The browser read the files by byte ranges, and the server answered them.
  const ranged = fileAnswers.filter((r) => r.status() === 206);
  expect(new Set(ranged.map((r) => new URL(r.url()).pathname)).size).toBe(2);
  expect(await ranged[0]!.request().headerValue("range")).toMatch(/^bytes=\d+-\d*$/);
  expect(await ranged[0]!.headerValue("content-type")).toBe("video/mp4");
  await videos.evaluateAll((all) => all.forEach((v) => (v as HTMLVideoElement).pause()));
  await expect(visitor.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex, nofollow");

  await visitor.screenshot({ path: testInfo.outputPath("public-compare-1280.png"), fullPage: true });
  expect(await violations(visitor), "the public comparison").toEqual([]);
  await visitor.setViewportSize({ width: 390, height: 844 });
  await visitor.screenshot({ path: testInfo.outputPath("public-compare-390.png"), fullPage: true });
  expect(await violations(visitor), "the public comparison at 390 px").toEqual([]);
  await visitor.emulateMedia({ colorScheme: "dark" });
  await visitor.screenshot({ path: testInfo.outputPath("public-compare-390-dark.png"), fullPage: true });
  await visitor.setViewportSize({ width: 1280, height: 800 });
  await visitor.screenshot({ path: testInfo.outputPath("public-compare-1280-dark.png"), fullPage: true });
  expect(await violations(visitor), "the public comparison, dark").toEqual([]);

  // The owner stops sharing: from the next request on, everything is gone.
  await page.getByRole("button", { name: /^Stop sharing/ }).click();
  await expect(page.getByRole("button", { name: /^Share/ })).toBeVisible();
  await expect(box).toHaveCount(0);
  await expect(page.getByTestId("compare-status")).toHaveText("Stopped sharing: the link no longer opens.");
  for (const path of ["", "/0/video", "/0/still", "/1/video", "/1/still"]) {
    const answer = await visitor.request.get(`${url}${path}`);
    expect([path, answer.status()]).toEqual([path, 404]);
  }
  const reopened = await visitor.goto(url);
  expect(reopened?.status()).toBe(404);
  await stranger.close();
});
