// The form as a user goes through it: what the model select shows, the fields
// below it and what is submitted agree after a successful submission; a
// refused one puts focus on the first field to fix, and an error leaves once
// its field is fixed; two frames of different shapes are warned about; a
// remix brings back the media of the generation it copies.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import * as fixtures from "../support/media-fixtures";
import { expect, test, type GalleryPage } from "./fixtures";

const clip = () => ({ name: "dance.mp4", mimeType: "video/mp4", buffer: fixtures.clip({ seconds: 2 }) });

/** The viewer's generations whose prompt holds `marker`, as the API lists them (newest first). */
async function listed(page: Page, marker: string): Promise<{ prompt: string; model: string }[]> {
  const answer = await page.request.get(`/api/generations?q=${encodeURIComponent(marker)}`);
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { items: { prompt: string; model: string }[] }).items.map(({ prompt, model }) => ({ prompt, model }));
}

async function axeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).include("form").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
}

/** Submits and waits for the form's reset: the answer said "Submitted" and the prompt is empty again. */
async function submitted(gallery: GalleryPage, prompt: string, fields: Record<string, string> = {}) {
  await gallery.submit(prompt, fields);
  await expect(gallery.formStatus).toHaveText(/Submitted/);
  await expect(gallery.page.getByLabel("Prompt", { exact: true })).toHaveValue("");
}

for (const { model, label, media } of [
  { model: "gamma/reference-to-video", label: "Gamma reference", media: true },
  { model: "alpha-2.5-text-to-video", label: "Alpha 2.5", media: false },
]) {
  test(`two submissions in a row with ${label}: the select keeps showing it, and both go to it`, async ({ gallery, simulator, page }) => {
    const select = page.getByLabel("Model");
    const prompts = [simulator.prompt("A heron lifts off the water"), simulator.prompt("The heron lands on a post")];
    // Still generating while the test runs: an outcome would refresh the page, which hides a form that is out of step.
    await simulator.scenario({ pendingMs: 60_000 });
    await gallery.goto();
    await gallery.chooseModel(model);
    for (const [i, prompt] of prompts.entries()) {
      // What the user sees before submitting: the model in the select, and that model's fields.
      await expect(select).toHaveValue(model);
      await expect(page.locator("#model-help")).toContainText(model);
      if (media) await gallery.attach("Reference videos", clip());
      else await expect(page.getByLabel("Aspect ratio")).toBeVisible();
      await submitted(gallery, prompt, media ? {} : { "Duration (s)": "2" });
      if (i === 0) await page.screenshot({ path: test.info().outputPath(`after-reset-${media ? "media" : "text"}.png`) });
    }
    // The form kept the model after each reset, and the fields still belong to it.
    await expect(select).toHaveValue(model);
    if (media) await expect(gallery.mediaField("Reference videos").getByTestId("upload-item")).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(await listed(page, simulator.marker)).toEqual(prompts.toReversed().map((prompt) => ({ prompt, model })));
    // The card says so too.
    for (const prompt of prompts) await expect(gallery.card(prompt).locator(`[title="${model}"]`)).toHaveText(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} · \\d+ s$`));
  });
}
