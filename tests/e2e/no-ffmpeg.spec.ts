// The app served by an instance without FFmpeg on its PATH (the suite's
// build, database, simulator and secrets, on a port of its own): a Ready
// video's frame actions stay in place, disabled, with the reason and the
// doctor to run; the whole clip can still be used as a reference; frames and
// clips upload as anywhere.
import AxeBuilder from "@axe-core/playwright";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { APP_PORT, E2E_APP_ENV } from "../../playwright.config";
import * as fixtures from "../support/media-fixtures";
import { pathWithoutFfmpeg } from "../support/without-ffmpeg";
import { expect, test } from "./fixtures";

const OTHER_PORT = APP_PORT + 11;
const otherUrl = `http://127.0.0.1:${OTHER_PORT}`;
const REASON = "Needs FFmpeg on the server (npm run doctor)";
const FRAME_ACTIONS = [/^Use last frame as first frame/, /^Use first frame/];

// One instance without FFmpeg for the file, shared by its tests in turn.
test.describe.configure({ mode: "serial" });

let other: ChildProcess | undefined;
const noFfmpeg = pathWithoutFfmpeg();

test.beforeAll(async () => {
  // Reads only: the suite's own instance makes the video, its copy and its still.
  other = spawn(process.execPath, [path.join("node_modules", "next", "dist", "bin", "next"), "start", "-p", String(OTHER_PORT), "-H", "127.0.0.1"], {
    env: { ...process.env, ...E2E_APP_ENV, PORT: String(OTHER_PORT), PUBLIC_BASE_URL: otherUrl, PATH: noFfmpeg.PATH },
    stdio: "ignore",
  });
  await expect.poll(async () => (await fetch(`${otherUrl}/api/health`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
});

test.afterAll(() => {
  other?.kill("SIGTERM");
  noFfmpeg.remove();
});

test("without FFmpeg: Use first/last frame are disabled with their reason on the card, the viewer, the form's gallery picker and the detail page; Use as reference video works", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A red kite above a green hill");
  await gallery.goto();
  await gallery.submit(prompt, { "Duration (s)": "2" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect(gallery.card(prompt).getByRole("button", { name: /^Continue…/ })).toBeVisible({ timeout: 30_000 });

  await page.goto(`${otherUrl}/`);
  const card = gallery.card(prompt);
  await card.getByRole("button", { name: /^Continue…/ }).click();
  const group = card.getByRole("group", { name: "Continue from this video" });
  // Every action keeps its place and label; the two that need a frame are disabled and say why.
  await expect(group.getByRole("button")).toHaveText([...FRAME_ACTIONS, /^Use as reference video/]);
  for (const name of FRAME_ACTIONS) {
    const button = group.getByRole("button", { name });
    await expect(button).toHaveAttribute("aria-disabled", "true");
    await expect(button).toHaveAccessibleDescription(REASON);
  }
  await expect(group.getByRole("button", { name: /^Use as reference video/ })).not.toHaveAttribute("aria-disabled", "true");
  await expect(group.getByTestId("frames-unavailable")).toHaveText(REASON);
  await expect(group.getByTestId("frames-unavailable")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-card.png") });

  // The viewer offers them outright, likewise; axe finds nothing to fix.
  await card.getByRole("button", { name: /in the viewer/ }).click();
  const viewer = page.getByRole("dialog");
  for (const name of FRAME_ACTIONS) await expect(viewer.getByRole("button", { name })).toHaveAttribute("aria-disabled", "true");
  await expect(viewer.getByTestId("frames-unavailable")).toHaveText(REASON);
  expect((await new AxeBuilder({ page }).include("dialog").analyze()).violations).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(viewer).toBeHidden();

  // Disabled for assistive technology and for a click: the form stays on its model.
  const model = await page.getByLabel("Model").inputValue();
  await expect(group.getByRole("button", { name: FRAME_ACTIONS[0] })).toBeDisabled();
  await group.getByRole("button", { name: FRAME_ACTIONS[0] }).click({ force: true });
  await expect(page.getByLabel("Model")).toHaveValue(model);

  // The whole clip needs no frame.
  await group.getByRole("button", { name: /^Use as reference video/ }).click();
  await expect(page.getByLabel("Model")).toHaveValue("delta-h3/reference-to-video");
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-item")).toHaveAttribute("data-status", "done", { timeout: 20_000 });

  // The form's "From my gallery" picker: a frame field's First/Last frame buttons, likewise.
  await gallery.chooseModel("alpha-2.5-first-last-frame-480p");
  await gallery.mediaField("First frame").getByRole("button", { name: /^From my gallery/ }).click();
  const picker = page.getByRole("dialog", { name: "First frame from my gallery" });
  const source = picker.getByTestId("gallery-source").filter({ hasText: prompt });
  for (const name of [/^First frame/, /^Last frame/]) await expect(source.getByRole("button", { name })).toHaveAttribute("aria-disabled", "true");
  await expect(source.getByRole("button", { name: /^Last frame/ })).toHaveAccessibleDescription(REASON);
  await expect(picker.getByTestId("frames-unavailable")).toHaveText(REASON);
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-picker.png") });
  await picker.getByRole("button", { name: "Close" }).click();

  // The detail page, on the same instance.
  await gallery.openDetails(prompt);
  for (const name of FRAME_ACTIONS) await expect(page.getByRole("button", { name })).toHaveAttribute("aria-disabled", "true");
  await expect(page.getByTestId("frames-unavailable")).toHaveText(REASON);
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-detail.png") });
});

test("without FFmpeg: two frames and a clip are uploaded and checked in the browser", async ({ gallery, page }) => {
  await page.goto(`${otherUrl}/`);
  await gallery.chooseModel("alpha-2.5-first-last-frame-480p");
  await gallery.attach("First frame", { name: "bud.png", mimeType: "image/png", buffer: fixtures.image({ width: 640, height: 480 }) });
  await gallery.attach("Last frame", { name: "flower.jpg", mimeType: "image/jpeg", buffer: fixtures.image({ format: "jpeg", width: 800, height: 600 }) });
  await expect(gallery.mediaField("First frame").getByTestId("upload-facts")).toContainText("640 × 480 px");
  await expect(gallery.mediaField("Last frame").getByTestId("upload-facts")).toContainText("800 × 600 px");
  await gallery.chooseModel("delta-h3/reference-to-video");
  await gallery.attach("Reference videos", { name: "dance.mp4", mimeType: "video/mp4", buffer: fixtures.clip({ seconds: 1 }) });
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-facts")).toContainText("640 × 360 px");
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-uploads.png") });
});
