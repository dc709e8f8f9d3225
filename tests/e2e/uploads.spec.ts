// Media inputs in the browser: frames and reference videos are picked,
// checked, uploaded with progress, and submitted as upload ids; the gateway
// fetches every one. Files a model would refuse get a message naming the
// limit, and are never stored.
import AxeBuilder from "@axe-core/playwright";
import * as fixtures from "../support/media-fixtures";
import { expect, test, type GalleryPage } from "./fixtures";

const FRAMES = "alpha-2.5-first-last-frame-480p";
const png = (name: string, width = 640, height = 480) => ({ name, mimeType: "image/png", buffer: fixtures.image({ width, height }) });

/** A 2 s video made from the gallery and kept here: Ready, with its card's Continue… button offered once the copy is stored (the gateway's own link expires). */
async function keptVideo(gallery: GalleryPage, prompt: string) {
  await gallery.goto();
  await gallery.submit(prompt, { "Duration (s)": "2" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect(gallery.card(prompt).getByRole("button", { name: /^Continue…/ })).toBeVisible({ timeout: 30_000 });
}

test("two images as first and last frame: uploaded (kept across a reload), fetched by the gateway, and the video arrives", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("The bud opens into a flower");
  await gallery.goto();
  await gallery.chooseModel(FRAMES);
  // This model needs both frames: the form says so before any refusal.
  await expect(page.getByText("First frame · required")).toBeVisible();
  await expect(gallery.mediaField("Last frame").locator('input[type="file"]')).toHaveAttribute("aria-required", "true");
  await gallery.attach("First frame", png("bud.png"));
  await gallery.attach("Last frame", png("flower.png", 800, 600));
  // Uploaded files survive a reload until they are used.
  await page.reload();
  await gallery.chooseModel(FRAMES);
  await expect(gallery.mediaField("Last frame").getByTestId("upload-item")).toHaveAttribute("data-status", "done");
  // Its preview now comes from the server (the owner-scoped upload route).
  await expect(gallery.mediaField("Last frame").locator("img")).toHaveJSProperty("naturalWidth", 800);
  await expect(gallery.mediaField("First frame").getByTestId("upload-facts")).toContainText("640 × 480 px");
  await expect(gallery.mediaField("Last frame").getByTestId("upload-facts")).toContainText("800 × 600 px");
  await page.screenshot({ path: test.info().outputPath("frames-uploaded.png"), fullPage: false });
  expect((await new AxeBuilder({ page }).include("form").analyze()).violations).toEqual([]);

  await gallery.submit(prompt, { "Duration (s)": "2" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const fetched = await simulator.inputs();
  expect(fetched.map((f) => [f.field, f.status, f.ok])).toEqual([
    ["first_frame_url", 200, true],
    ["last_frame_url", 200, true],
  ]);
  expect(fetched[0]!.url).toMatch(/\/api\/inputs\/upl_[a-z0-9]{24}\?expires=\d+&sig=/);
  // The form is ready for the next one: the uploads went with the submission, and a reload does not bring them back.
  await expect(gallery.mediaField("First frame").getByTestId("upload-item")).toHaveCount(0);
  expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith("framehook:uploads:")))).toEqual([]);
  await page.reload();
  await gallery.chooseModel(FRAMES);
  await expect(gallery.mediaField("First frame").getByTestId("upload-item")).toHaveCount(0);
  // The detail page shows the frames it was made from, not their upload ids.
  await gallery.openDetails(prompt);
  const inputs = page.getByRole("region", { name: "Inputs" });
  await expect(inputs.getByRole("img", { name: "Uploaded image, PNG · 640×480" })).toHaveJSProperty("naturalWidth", 640);
  await expect(inputs.getByRole("img", { name: "Uploaded image, PNG · 800×600" })).toHaveJSProperty("naturalWidth", 800);
  await expect(inputs).not.toContainText("upl_");
  await inputs.screenshot({ path: test.info().outputPath("detail-inputs.png") });
});

test("a reference video: uploaded with what was read, then the video arrives", async ({ gallery, simulator }) => {
  const prompt = simulator.prompt("Same dance, but underwater");
  await gallery.goto();
  await gallery.chooseModel("gamma/reference-to-video");
  await gallery.attach("Reference videos", { name: "dance.mp4", mimeType: "video/mp4", buffer: fixtures.clip({ seconds: 2 }) });
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-facts")).toContainText(/640 × 360 px · 2 s · 24 fps/);
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  expect((await simulator.inputs()).map((f) => [f.field, f.ok])).toEqual([["reference_video_urls[0]", true]]);
});

test("a wrong type, an oversize file and a too-long clip: each a message naming the limit, nothing stored", async ({ gallery, page, browserErrors }) => {
  // Three files through the browser (one of 11 MB handed over by the test) and an accessibility scan: a loaded machine takes minutes.
  test.slow();
  const uploads: number[] = [];
  // The uploads themselves (the form first asks /api/uploads/presign how to send each file).
  page.on("response", (r) => r.url().includes("/api/uploads?") && r.request().method() === "POST" && uploads.push(r.status()));
  await gallery.goto();
  await gallery.chooseModel(FRAMES);

  // A text file named .png: the browser cannot read it, so the server answers from its bytes.
  browserErrors.allow({ status: 415, reason: "the upload route refuses a file that is not an image" });
  await gallery.mediaField("First frame").locator('input[type="file"]').setInputFiles({ name: "notes.png", mimeType: "image/png", buffer: fixtures.plainText() });
  await expect(gallery.mediaField("First frame").getByTestId("upload-error")).toHaveText("This file is not a PNG, JPEG, WebP, MP4, QuickTime or WebM file (its contents say so, whatever its name).");

  // Over the 10 MB limit: refused in the browser, never sent.
  const big = Buffer.concat([fixtures.image({ width: 640, height: 480 }), Buffer.alloc(11 * 1024 * 1024)]);
  await gallery.mediaField("Last frame").locator('input[type="file"]').setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: big });
  await expect(gallery.mediaField("Last frame").getByTestId("upload-error")).toHaveText(/^This image is 11(\.0)? MB; Alpha 2\.5 first & last frame · 480p takes up to 10 MB\.$/);

  // A 14 s clip for Delta H3 (up to 10 s): refused in the browser where it can read the clip, else by the server.
  browserErrors.allow({ status: 422, reason: "a browser without H.264 sends the clip, and the server refuses it" });
  await gallery.chooseModel("delta-h3/reference-to-video");
  const long = fixtures.clip({ seconds: 14, width: 320, height: 256, fps: 10 });
  await gallery.mediaField("Reference videos").locator('input[type="file"]').setInputFiles({ name: "long.mp4", mimeType: "video/mp4", buffer: long });
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-error")).toHaveText("This clip is 14 s; Delta H3 reference takes up to 10 s.");
  await page.screenshot({ path: test.info().outputPath("upload-errors.png") });
  expect((await new AxeBuilder({ page }).include("form").analyze()).violations).toEqual([]);

  // What reached the server was refused: nothing was stored.
  expect(uploads[0]).toBe(415);
  expect(uploads.every((status) => status >= 400)).toBe(true);
  await expect(page.locator('input[type="hidden"][name="input.reference_video_urls"]')).toHaveValue("");
});

test("use last frame as first frame: a Ready video's last frame, from the kit's copy, fills the form and submits", async ({ gallery, simulator, page }) => {
  const first = simulator.prompt("A paper lantern rising over a river");
  await keptVideo(gallery, first);
  // Behind the card's one "Continue…" button.
  const card = gallery.card(first);
  await expect(card.getByRole("button", { name: /^Continue…/ })).toHaveAttribute("aria-expanded", "false");
  await expect(card.getByRole("button", { name: /^Use last frame as first frame/ })).toBeHidden();
  await card.getByRole("button", { name: /^Continue…/ }).click();
  await expect(card.getByRole("group", { name: "Continue from this video" }).getByRole("button")).toHaveText([/^Use last frame as first frame/, /^Use first frame/, /^Use as reference video/]);
  await card.getByRole("button", { name: /^Use last frame as first frame/ }).click();
  await expect(page.getByLabel("Model")).toHaveValue(FRAMES);
  // The frame is the clip's own size: 16:9, as the task asked (854 × 480 for the simulator's real-size clips).
  const facts = gallery.mediaField("First frame").getByTestId("upload-facts");
  await expect(facts).toContainText(/\d+ × \d+ px/, { timeout: 20_000 });
  const [, width = "0", height = "1"] = /(\d+) × (\d+) px/.exec((await facts.textContent()) ?? "") ?? [];
  expect(Number(width) / Number(height)).toBeCloseTo(16 / 9, 1);

  const next = simulator.prompt("The lantern drifts into the clouds");
  await gallery.attach("Last frame", png("clouds.png"));
  await gallery.submit(next, { "Duration (s)": "2" });
  await expect(gallery.badge(next)).toHaveText("Ready");
  const fetched = await simulator.inputs();
  expect(fetched.map((f) => [f.field, f.ok])).toEqual([
    ["first_frame_url", true],
    ["last_frame_url", true],
  ]);
});

test("use as reference video (from the viewer): a Ready video, from the kit's copy, becomes a reference clip and is fetched by the gateway", async ({ gallery, simulator, page }) => {
  const first = simulator.prompt("A fox trotting through snow");
  await keptVideo(gallery, first);
  // Offered in the viewer too: taken from there, the viewer closes onto the form.
  await gallery.card(first).getByRole("button", { name: /in the viewer/ }).click();
  const viewer = page.getByRole("dialog");
  await viewer.getByRole("button", { name: /^Use as reference video/ }).click();
  await expect(viewer).toBeHidden();
  await expect(page.getByLabel("Model")).toHaveValue("delta-h3/reference-to-video");
  const item = gallery.mediaField("Reference videos").getByTestId("upload-item");
  await expect(item).toHaveAttribute("data-status", "done", { timeout: 20_000 });
  // What the server read from the stored copy: a 16:9 clip with a length.
  await expect(item.getByTestId("upload-facts")).toContainText(/^\d+ × \d+ px · [\d.]+ s · \d+ fps/);

  const next = simulator.prompt("The same fox, at night");
  await gallery.submit(next, { "Duration (s)": "2" });
  await expect(gallery.badge(next)).toHaveText("Ready");
  expect((await simulator.inputs()).map((f) => [f.field, f.ok])).toEqual([["reference_video_urls[0]", true]]);
});

test("from my gallery: a field's picker lists the viewer's Ready videos and takes a frame or the clip from the kit's copy", async ({ gallery, simulator, page }) => {
  // Two generations, a frame decoded from a stored copy and two accessibility scans: a loaded machine takes minutes.
  test.slow();
  const first = simulator.prompt("Waves rolling onto a pebble beach");
  await keptVideo(gallery, first);

  await gallery.chooseModel(FRAMES);
  await page.getByRole("button", { name: /^From my gallery\W+Last frame$/ }).click();
  const picker = page.getByRole("dialog", { name: "Last frame from my gallery" });
  await expect(picker.getByTestId("gallery-source")).toHaveCount(1);
  // A modal: the rest of the page is inert until it closes.
  expect(await picker.evaluate((dialog) => dialog.matches(":modal"))).toBe(true);
  await expect(picker.getByTestId("gallery-source").locator("img")).toHaveJSProperty("complete", true);
  await page.screenshot({ path: test.info().outputPath("gallery-picker.png") });
  expect((await new AxeBuilder({ page }).include("form").analyze()).violations).toEqual([]);
  await picker.getByRole("button", { name: /^First frame of “Waves rolling/ }).click();
  await expect(picker).toBeHidden();
  await expect(gallery.mediaField("Last frame").getByTestId("upload-facts")).toContainText(/\d+ × \d+ px/);
  expect((await new AxeBuilder({ page }).include("form").analyze()).violations).toEqual([]);

  // A video field offers the clip itself.
  await gallery.chooseModel("gamma/reference-to-video");
  await page.getByRole("button", { name: /^From my gallery\W+Reference videos$/ }).click();
  await page.getByRole("dialog", { name: "Reference videos from my gallery" }).getByRole("button", { name: /^Use this video/ }).click();
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-facts")).toContainText(/[\d.]+ s · \d+ fps/);
  const next = simulator.prompt("Waves, slower");
  await gallery.submit(next, { "Duration (s)": "2" });
  await expect(gallery.badge(next)).toHaveText("Ready");
  expect((await simulator.inputs()).map((f) => [f.field, f.ok])).toEqual([["reference_video_urls[0]", true]]);
});
