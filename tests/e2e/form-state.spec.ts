// The form as a user goes through it: what the model select shows, the fields
// below it and what is submitted agree after a successful submission; a
// refused one puts focus on the first field to fix, and an error leaves once
// its field is fixed; two frames of different shapes are warned about; a
// remix brings back the media of the generation it copies.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import * as fixtures from "../support/media-fixtures";
import { E2E_CRON_SECRET } from "../../playwright.config";
import { executeInAppDatabase } from "./database";
import { expect, test, type GalleryPage } from "./fixtures";

const FRAMES = "alpha-2.5-first-last-frame-480p";

const clip = () => ({ name: "dance.mp4", mimeType: "video/mp4", buffer: fixtures.clip({ seconds: 2 }) });

/** The viewer's generations whose prompt holds `marker`, as the API lists them (newest first). */
async function listed(page: Page, marker: string): Promise<{ prompt: string; model: string }[]> {
  return (await generations(page, marker)).map(({ prompt, model }) => ({ prompt, model }));
}

async function generations(page: Page, marker: string) {
  const answer = await page.request.get(`/api/generations?q=${encodeURIComponent(marker)}`);
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { items: { prompt: string; model: string; input: Record<string, unknown> }[] }).items;
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

test("a refused submission puts focus on the first field to fix and says why; fixing a field, or changing the model, takes its error away", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A lighthouse in fog");
  const duration = page.getByLabel("Duration (s)");
  await gallery.goto();
  await gallery.chooseModel("alpha-2.5-text-to-video");
  await gallery.submit(prompt, { "Duration (s)": "99" });
  await expect(gallery.formStatus).toHaveText("Check the highlighted fields.");
  await expect(gallery.formStatus).toHaveAttribute("aria-live", "polite");
  // Focus is on the field to fix, which reads its error with it.
  await expect(duration).toBeFocused();
  await expect(duration).toHaveAttribute("aria-invalid", "true");
  await expect(duration).toHaveAccessibleDescription(/\S/);
  await page.screenshot({ path: test.info().outputPath("refused-focus.png") });
  expect(await axeViolations(page)).toEqual([]);

  // Fixing it takes the error away, and the form's "check the fields" with it.
  await duration.fill("3");
  await expect(duration).not.toHaveAttribute("aria-invalid", "true");
  await expect(duration).toHaveAccessibleDescription("");
  await expect(gallery.formStatus).toHaveText("");

  // So does a change of model: the fields below are the new model's.
  await duration.fill("99");
  await page.getByRole("button", { name: "Generate video" }).click();
  await expect(duration).toBeFocused();
  await expect(duration).toHaveAttribute("aria-invalid", "true");
  await gallery.chooseModel("alpha-2.5-text-to-video-480p");
  await expect(duration).not.toHaveAttribute("aria-invalid", "true");
  await expect(gallery.formStatus).toHaveText("");
  expect(await listed(page, simulator.marker)).toEqual([]);
});

test("a remix after a refused submission leaves no error from the refusal", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A kettle starts to steam");
  const duration = page.getByLabel("Duration (s)");
  await gallery.goto();
  await submitted(gallery, prompt, { "Duration (s)": "2" });
  await gallery.submit(simulator.prompt("A kettle boils over"), { "Duration (s)": "99" });
  await expect(duration).toHaveAttribute("aria-invalid", "true");
  await gallery.card(prompt).getByRole("button", { name: /^Remix/ }).click();
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue(prompt);
  await expect(duration).toHaveValue("2");
  await expect(duration).not.toHaveAttribute("aria-invalid", "true");
  await expect(gallery.formStatus).toHaveText("");
});

test("missing frames: focus goes to the first one, and each frame's error leaves once it is uploaded", async ({ gallery, simulator, page }) => {
  const first = gallery.mediaField("First frame");
  const last = gallery.mediaField("Last frame");
  await gallery.goto();
  await gallery.chooseModel(FRAMES);
  await gallery.submit(simulator.prompt("A seed becomes a tree"));
  await expect(gallery.formStatus).toHaveText("Check the highlighted fields.");
  await expect(first.locator('input[type="file"]')).toBeFocused();
  await expect(first).toHaveAccessibleDescription(/Required/);
  await expect(last).toHaveAccessibleDescription(/Required/);
  await page.screenshot({ path: test.info().outputPath("frames-required.png") });
  expect(await axeViolations(page)).toEqual([]);

  await gallery.attach("First frame", { name: "seed.png", mimeType: "image/png", buffer: fixtures.image() });
  await expect(first).not.toHaveAccessibleDescription(/Required/);
  await expect(last).toHaveAccessibleDescription(/Required/);
  await expect(gallery.formStatus).toHaveText("Check the highlighted fields.");
  await page.screenshot({ path: test.info().outputPath("first-frame-fixed.png") });
  expect(await axeViolations(page)).toEqual([]);
});

test("a 16:9 first frame with a 9:16 last frame: a warning under the frames before submitting, gone once they match", async ({ gallery, page }) => {
  const warning = page.getByTestId("frame-shape-warning");
  const png = (name: string, width: number, height: number) => ({ name, mimeType: "image/png", buffer: fixtures.image({ width, height }) });
  await gallery.goto();
  await gallery.chooseModel(FRAMES);
  await gallery.attach("First frame", png("wide.png", 1280, 720));
  await expect(warning).toHaveText("");
  await gallery.attach("Last frame", png("tall.png", 720, 1280));
  await expect(warning).toBeVisible();
  await expect(warning).toHaveText(/^The first frame is 16:9 and the last frame 9:16: /);
  await warning.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath("frame-shapes-differ.png") });
  expect(await axeViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: test.info().outputPath("frame-shapes-differ-dark.png") });
  expect(await axeViolations(page)).toEqual([]);

  // 854 × 480 is 16:9 too.
  await gallery.mediaField("Last frame").getByRole("button", { name: /^Remove/ }).click();
  await gallery.attach("Last frame", png("wide-too.png", 854, 480));
  await expect(gallery.mediaField("Last frame").getByTestId("upload-facts")).toContainText("854 × 480 px");
  await expect(warning).toHaveText("");
});

test("remix of a first/last-frame card brings back both frames while they are kept, and the gateway fetches them again", async ({ gallery, simulator, page }) => {
  const [first, next] = [simulator.prompt("A candle is lit"), simulator.prompt("A candle is lit, slower")];
  await gallery.goto();
  await gallery.chooseModel(FRAMES);
  await gallery.attach("First frame", { name: "dark.png", mimeType: "image/png", buffer: fixtures.image({ width: 640, height: 480 }) });
  await gallery.attach("Last frame", { name: "lit.png", mimeType: "image/png", buffer: fixtures.image({ width: 800, height: 600 }) });
  await submitted(gallery, first, { "Duration (s)": "2" });
  await expect(gallery.badge(first)).toHaveText("Ready");

  await gallery.card(first).getByRole("button", { name: /^Remix/ }).click();
  await expect(page.getByLabel("Model")).toHaveValue(FRAMES);
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue(first);
  await expect(gallery.mediaField("First frame").getByTestId("upload-facts")).toContainText("640 × 480 px");
  await expect(gallery.mediaField("Last frame").getByTestId("upload-facts")).toContainText("800 × 600 px");
  await expect(page.getByTestId("media-note")).toHaveText(["", ""]);
  await page.screenshot({ path: test.info().outputPath("remix-frames.png") });
  expect(await axeViolations(page)).toEqual([]);

  await submitted(gallery, next, { "Duration (s)": "2" });
  await expect(gallery.badge(next)).toHaveText("Ready");
  const [again] = await generations(page, next);
  const [before] = (await generations(page, simulator.marker)).filter((g) => g.prompt === first);
  expect(again!.input).toMatchObject({ first_frame_url: before!.input.first_frame_url, last_frame_url: before!.input.last_frame_url });
  expect((await simulator.inputs()).map((f) => [f.field, f.ok])).toEqual([
    ["first_frame_url", true],
    ["last_frame_url", true],
    ["first_frame_url", true],
    ["last_frame_url", true],
  ]);
});

test("remix of a reference-video card brings the clip back", async ({ gallery, simulator, page }) => {
  const [first, next] = [simulator.prompt("Same walk, on the moon"), simulator.prompt("Same walk, on Mars")];
  await gallery.goto();
  await gallery.chooseModel("gamma/reference-to-video");
  await gallery.attach("Reference videos", clip());
  await submitted(gallery, first);
  await gallery.card(first).getByRole("button", { name: /^Remix/ }).click();
  await expect(page.getByLabel("Model")).toHaveValue("gamma/reference-to-video");
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-facts")).toContainText(/640 × 360 px · 2 s · 24 fps/);
  await page.screenshot({ path: test.info().outputPath("remix-reference.png") });
  // Removed from the form, the clip stays the first generation's (no delete is attempted: that would be a 409).
  const [generation] = await generations(page, first);
  const clipId = (generation!.input.reference_video_urls as string[])[0]!;
  await gallery.mediaField("Reference videos").getByRole("button", { name: /^Remove/ }).click();
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-item")).toHaveCount(0);
  expect((await page.request.get(`/api/uploads/${clipId}`)).status()).toBe(200);
  await gallery.card(first).getByRole("button", { name: /^Remix/ }).click();
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-facts")).toContainText(/640 × 360 px · 2 s · 24 fps/);
  await submitted(gallery, next);
  await expect(gallery.badge(next)).toHaveText("Ready");
  expect((await simulator.inputs()).filter((f) => f.ok).map((f) => f.field)).toEqual(["reference_video_urls[0]", "reference_video_urls[0]"]);
});

test("remix after a frame's upload is no longer kept: the other frame comes back, and the form says which to add again", async ({ gallery, simulator, page }) => {
  const first = simulator.prompt("A wave breaks");
  await gallery.goto();
  await gallery.chooseModel(FRAMES);
  await gallery.attach("First frame", { name: "calm.png", mimeType: "image/png", buffer: fixtures.image({ width: 640, height: 480 }) });
  await gallery.attach("Last frame", { name: "foam.png", mimeType: "image/png", buffer: fixtures.image({ width: 800, height: 600 }) });
  await submitted(gallery, first, { "Duration (s)": "2" });
  await expect(gallery.badge(first)).toHaveText("Ready");
  // The last frame's upload goes past keeping, and the scheduled sweep deletes it.
  const [generation] = await generations(page, simulator.marker);
  await executeInAppDatabase(`UPDATE "Upload" SET "usedAt" = ? WHERE "id" = ?`, [new Date("2000-01-01T00:00:00Z"), String(generation!.input.last_frame_url)]);
  const sweep = await page.request.get("/api/cron/reconcile", { headers: { Authorization: `Bearer ${E2E_CRON_SECRET}` } });
  expect(sweep.status()).toBe(200);

  await gallery.card(first).getByRole("button", { name: /^Remix/ }).click();
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue(first);
  await expect(gallery.mediaField("First frame").getByTestId("upload-facts")).toContainText("640 × 480 px");
  const last = gallery.mediaField("Last frame");
  await expect(page.getByTestId("media-note").nth(1)).toHaveText("Add the last frame again: the remixed video's last frame is no longer available.");
  await expect(last).toHaveAccessibleDescription(/Add the last frame again/);
  await expect(last.getByTestId("upload-item")).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath("remix-frame-gone.png"), fullPage: true });
  expect(await axeViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await axeViolations(page)).toEqual([]);

  // Adding it again takes the note away.
  await gallery.attach("Last frame", { name: "foam-again.png", mimeType: "image/png", buffer: fixtures.image({ width: 800, height: 600 }) });
  await expect(page.getByTestId("media-note").nth(1)).toHaveText("");
});
