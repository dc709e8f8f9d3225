// Keeping the videos: a finished result is copied into the app's storage, and
// the gallery keeps playing it (with real Range requests) after the gateway's
// link has expired. "Result expired" is only for links that died uncopied.
import { SIMULATOR_URL } from "../../playwright.config";
import { expect, test } from "./fixtures";

test("a finished video is copied and still plays from the copy after the gateway's link expires", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A lighthouse keeper's last night");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  // Once copied, the tile shows the copy's still, and plays the app's copy rather than the gateway's link.
  const tile = gallery.card(prompt).getByRole("button", { name: /in the viewer/ });
  await expect(tile.locator("img")).toHaveAttribute("src", /^\/api\/media\/\w+\/still$/);
  await tile.hover();
  const video = gallery.card(prompt).locator("video");
  await expect(video).toHaveAttribute("data-source", "stored");
  const src = (await video.getAttribute("src"))!;
  expect(src).toMatch(/^\/api\/media\/\w+$/);

  // The gateway forgets the result.
  const [task] = await simulator.tasks();
  await simulator.control.expire(simulator.marker);
  expect((await page.request.get(task!.resultUrls[0]!)).status()).toBe(410);

  // A fresh page still plays it, and the browser fetches it by byte ranges.
  const ranged = page.waitForResponse(async (r) => r.url().endsWith(src) && r.status() === 206 && !!(await r.request().headerValue("range")));
  await page.reload();
  await gallery.card(prompt).getByRole("button", { name: /in the viewer/ }).hover();
  const reloaded = gallery.card(prompt).locator("video");
  await expect(reloaded).toHaveAttribute("src", src);
  const response = await ranged;
  expect(response.headers()["content-type"]).toBe("video/mp4");
  expect(response.headers()["content-range"]).toMatch(/^bytes \d+-\d+\/\d+$/);
  await expect.poll(() => reloaded.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
  expect(await reloaded.evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(1);
  await expect(gallery.card(prompt).getByText("Result expired")).toHaveCount(0);

  // The detail page shows both, and the copy's status.
  await gallery.openDetails(prompt);
  await expect(page.getByTestId("copy-status")).toHaveText(/^stored · \d+ KB$/);
  await expect(page.getByText(task!.resultUrls[0]!, { exact: true })).toBeVisible();
  await expect(page.getByRole("region", { name: "Result" }).locator("video")).toHaveAttribute("src", src);
});

test("a link that died before any copy shows \"Result expired\" and the failed copy", async ({ gallery, simulator, page }) => {
  await simulator.scenario({ media: { status: 410 } });
  const prompt = simulator.prompt("Fog over the harbour");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const card = gallery.card(prompt);
  // No copy, so no still: a placeholder, and nothing is fetched until the tile plays.
  await expect(card.getByTestId("tile-placeholder")).toBeVisible();
  await card.getByRole("button", { name: /in the viewer/ }).hover();
  await expect(card.getByText("Result expired")).toBeVisible();
  await expect(card.getByRole("link", { name: /Download/ })).toHaveCount(0);
  await gallery.openDetails(prompt);
  await expect(page.getByTestId("copy-status")).toHaveText(/copy failed after 1 attempt\(s\): .*410/);
  await expect(page.getByText(new RegExp(`^${SIMULATOR_URL}/media/`))).toBeVisible();
});
