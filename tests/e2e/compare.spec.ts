// Compare models: three models on one prompt from the form, held as one; the
// comparison view's columns turn Ready one by one on the live stream (no
// reload); the pick is kept across a reload; the gallery shows the batch as
// one card that opens the view. Screenshots at 390 px and in dark mode.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import * as fixtures from "../support/media-fixtures";
import { expect, test } from "./fixtures";

const png = (name: string) => ({ name, mimeType: "image/png", buffer: fixtures.image({ width: 640, height: 480 }) });
const MODELS = ["Alpha 2.5 · 480p", "Alpha 2.5", "Alpha 2.5 first & last frame · 480p"];

test("three models compared: held as one, columns turn Ready one by one, the pick kept after a reload", async ({ gallery, simulator, page }, testInfo) => {
  // The newest scenario wins and each serves one task: the first task the gateway gets is ready after ~3 s, the next ~9 s, the last ~15 s.
  await simulator.scenario({ pendingMs: 15_000, times: 1 });
  await simulator.scenario({ pendingMs: 9_000, times: 1 });
  await simulator.scenario({ pendingMs: 3_000, times: 1 });
  const prompt = simulator.prompt("A kite over the dunes");
  await gallery.goto();
  const before = await gallery.balanceValue();

  await page.getByRole("button", { name: "Compare models" }).click();
  const form = page.getByRole("form", { name: "Compare models" });
  for (const label of MODELS) await form.getByRole("checkbox", { name: label, exact: true }).check();
  // A fourth may be picked, a fifth not.
  await form.getByRole("checkbox", { name: "Gamma reference" }).check();
  await expect(form.getByRole("checkbox", { name: "Beta 1.1 reference" })).toBeDisabled();
  await form.getByRole("checkbox", { name: "Gamma reference" }).uncheck();

  await form.getByLabel("Prompt", { exact: true }).fill(prompt);
  // Duration is every model's: asked once. Frames only under the model that takes them; the others say so.
  await expect(form.getByLabel("Duration (s)")).toHaveCount(1);
  await form.getByLabel("Duration (s)").fill("2");
  const frames = form.getByRole("group", { name: `${MODELS[2]} options` });
  await expect(form.getByRole("group", { name: `${MODELS[0]} options` }).getByTestId("not-applicable")).toHaveText("First frame, Last frame: not applicable to this model.");
  await gallery.attach("First frame", png("dune.png"));
  await gallery.attach("Last frame", png("sky.png"));
  await expect(frames.getByRole("group", { name: "First frame" })).toBeVisible();
  // Each model's credits, and the total: 2 s at 0.1408 USD/s is 5 credits each.
  const estimate = form.getByTestId("compare-estimate");
  for (const label of MODELS) await expect(estimate).toContainText(`${label}: 5 credits`);
  await expect(estimate).toContainText("Holds 15 credits in all");

  await form.getByRole("button", { name: "Compare 3 models" }).click();
  await expect(page).toHaveURL(/\/compare\/[^/]+$/);
  await expect(page.getByRole("heading", { name: "Comparison · 3 models" })).toBeVisible();
  const columns = page.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 2 }) });
  await expect(columns).toHaveCount(3);
  const ready = page.locator('li[data-state="SUCCESS"]');
  // Column by column, without a reload: one Ready while two generate, then two, then three.
  await expect(ready).toHaveCount(1, { timeout: 30_000 });
  await expect(page.locator('li[data-state="PENDING"]')).toHaveCount(2);
  await expect(ready).toHaveCount(2, { timeout: 30_000 });
  await expect(page.locator('li[data-state="PENDING"]')).toHaveCount(1);
  await expect(ready).toHaveCount(3, { timeout: 30_000 });
  for (const label of MODELS) {
    const column = page.getByRole("listitem", { name: label, exact: true });
    await expect(column.getByTestId("state-badge")).toHaveText("Ready");
    await expect(column).toContainText("5 credits");
    await expect(column).toContainText(/Time taken\s*\d/);
  }
  // The three were held as one, then each captured: 15 credits in all.
  await gallery.goto();
  await expect.poll(() => gallery.balanceValue()).toBe(before - 15);
  const card = page.getByRole("region", { name: "Comparison of 3 models" });
  await expect(card).toContainText("3 models");
  await expect(card.getByRole("article")).toHaveCount(3);
  await card.getByRole("link", { name: "Open comparison" }).click();
  await expect(page.getByRole("heading", { name: "Comparison · 3 models" })).toBeVisible();

  // Play all from the start: every video plays, from its beginning.
  await page.getByRole("button", { name: "Play all from the start" }).click();
  await expect(page.getByTestId("compare-status")).toHaveText("Playing 3 videos from the start.");
  const videos = page.locator("video");
  await expect(videos).toHaveCount(3);
  await expect.poll(() => videos.evaluateAll((all) => all.filter((v) => !(v as HTMLVideoElement).paused).length)).toBe(3);

  const pick = page.getByRole("listitem", { name: MODELS[1], exact: true }).getByRole("button", { name: "Mark as my pick" });
  await pick.click();
  await expect(page.getByTestId("compare-status")).toHaveText("Marked as your pick.");
  await page.reload();
  await expect(page.getByRole("listitem", { name: MODELS[1], exact: true }).getByRole("button", { name: "My pick ✓" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByRole("button", { name: "Mark as my pick" })).toHaveCount(2);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: testInfo.outputPath("compare-390.png"), fullPage: true });
  expect(await violations(page), "the comparison at 390 px").toEqual([]);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("compare-dark.png"), fullPage: true });
  expect(await violations(page), "the comparison, dark").toEqual([]);
  await page.goto("/");
  await page.getByRole("button", { name: "Compare models" }).click();
  for (const label of MODELS) await page.getByRole("checkbox", { name: label, exact: true }).check();
  await page.screenshot({ path: testInfo.outputPath("compare-form-dark.png"), fullPage: true });
  expect(await violations(page), "the compare form and the batch card, dark").toEqual([]);

  // Only the owner sees it.
  const stranger = await page.context().browser()!.newContext();
  const other = await stranger.newPage();
  const url = new URL(page.url());
  const response = await other.goto(`${url.origin}/compare/${(await idFromCard(page))}`);
  expect(response?.status()).toBe(404);
  await stranger.close();
});

/** axe's WCAG 2.1 A/AA violations, as accessibility.spec.ts checks the gallery. */
async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations.map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
}

/** The comparison id the gallery's card links to. */
async function idFromCard(page: Page) {
  const href = await page.getByRole("region", { name: "Comparison of 3 models" }).getByRole("link", { name: "Open comparison" }).getAttribute("href");
  return href!.split("/").at(-1)!;
}
