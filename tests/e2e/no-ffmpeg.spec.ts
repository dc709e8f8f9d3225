// The app served by an instance without FFmpeg on its PATH (the suite's
// build, database, simulator and secrets, on a port of its own): a Ready
// video's frame actions take the frame in the browser from the stored copy
// and upload it, saying so and naming the doctor; the whole clip can still be
// used as a reference; frames and clips upload as anywhere.
import AxeBuilder from "@axe-core/playwright";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { APP_PORT, E2E_APP_ENV } from "../../playwright.config";
import * as fixtures from "../support/media-fixtures";
import { pathWithoutFfmpeg } from "../support/without-ffmpeg";
import { expect, test } from "./fixtures";

const OTHER_PORT = APP_PORT + 11;
const otherUrl = `http://127.0.0.1:${OTHER_PORT}`;
const REASON = "Frames are taken in your browser: the server has no FFmpeg (npm run doctor)";
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

test("without FFmpeg: Use first/last frame take the frame in the browser, on the card, the viewer, the form's gallery picker and the detail page, and say so; Use as reference video works", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A red kite above a green hill");
  await gallery.goto();
  await gallery.submit(prompt, { "Duration (s)": "2" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect(gallery.card(prompt).getByRole("button", { name: /^Continue…/ })).toBeVisible({ timeout: 30_000 });

  await page.goto(`${otherUrl}/`);
  const card = gallery.card(prompt);
  await card.getByRole("button", { name: /^Continue…/ }).click();
  const group = card.getByRole("group", { name: "Continue from this video" });
  // Every action keeps its place and label; the two that need a frame say the browser takes it.
  await expect(group.getByRole("button")).toHaveText([...FRAME_ACTIONS, /^Use as reference video/]);
  for (const name of FRAME_ACTIONS) {
    const button = group.getByRole("button", { name });
    await expect(button).not.toHaveAttribute("aria-disabled", "true");
    await expect(button).toHaveAccessibleDescription(REASON);
  }
  await expect(group.getByTestId("frames-unavailable")).toHaveText(REASON);
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-card.png") });

  // The stored copy's own size, as this browser decodes it: the frame must be that size.
  const list = (await (await page.request.get(`${otherUrl}/api/generations?limit=50`)).json()) as { items: { prompt: string; storedMedia: { url: string | null }[] }[] };
  const copyUrl = list.items.find((item) => item.prompt === prompt)!.storedMedia[0]!.url;
  const size = await page.evaluate(async (src) => {
    const video = document.createElement("video");
    video.muted = true;
    video.src = src!;
    await new Promise((resolve) => video.addEventListener("loadedmetadata", resolve, { once: true }));
    return `${video.videoWidth} × ${video.videoHeight} px`;
  }, copyUrl);

  // The last frame, taken here: the form switches to the frame model, and the field uploads it (checked by the server with sharp).
  const started = Date.now();
  await group.getByRole("button", { name: FRAME_ACTIONS[0] }).click();
  await expect(page.getByLabel("Model")).toHaveValue("alpha-2.5-first-last-frame-480p");
  const firstFrame = gallery.mediaField("First frame");
  await expect(firstFrame.getByTestId("upload-item")).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  console.log(`[no-ffmpeg] last frame taken in the browser and uploaded in ${Date.now() - started} ms (${size})`);
  await expect(firstFrame.getByTestId("upload-facts")).toContainText(size);
  await expect(firstFrame.getByRole("button", { name: "Remove last frame.png" })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-browser-frame.png") });

  // The viewer offers them outright, likewise; axe finds nothing to fix.
  await card.getByRole("button", { name: /in the viewer/ }).click();
  const viewer = page.getByRole("dialog");
  for (const name of FRAME_ACTIONS) await expect(viewer.getByRole("button", { name })).toHaveAccessibleDescription(REASON);
  await expect(viewer.getByTestId("frames-unavailable")).toHaveText(REASON);
  expect((await new AxeBuilder({ page }).include("dialog").analyze()).violations).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(viewer).toBeHidden();

  // The whole clip needs no frame.
  await card.getByRole("button", { name: /^Continue…/ }).click();
  await group.getByRole("button", { name: /^Use as reference video/ }).click();
  await expect(page.getByLabel("Model")).toHaveValue("delta-h3/reference-to-video");
  await expect(gallery.mediaField("Reference videos").getByTestId("upload-item")).toHaveAttribute("data-status", "done", { timeout: 20_000 });

  // The form's "From my gallery" picker: a frame field's First frame, taken here too, into that field.
  await gallery.chooseModel("alpha-2.5-first-last-frame-480p");
  const lastFrame = gallery.mediaField("Last frame");
  await lastFrame.getByRole("button", { name: /^From my gallery/ }).click();
  const picker = page.getByRole("dialog", { name: "Last frame from my gallery" });
  const source = picker.getByTestId("gallery-source").filter({ hasText: prompt });
  await expect(source.getByRole("button", { name: /^First frame/ })).toHaveAccessibleDescription(REASON);
  await expect(picker.getByTestId("frames-unavailable")).toHaveText(REASON);
  await page.screenshot({ path: test.info().outputPath("no-ffmpeg-picker.png") });
  await source.getByRole("button", { name: /^First frame/ }).click();
  await expect(picker).toBeHidden();
  await expect(lastFrame.getByTestId("upload-item")).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(lastFrame.getByTestId("upload-facts")).toContainText(size);

  // The detail page, on the same instance.
  await gallery.openDetails(prompt);
  for (const name of FRAME_ACTIONS) await expect(page.getByRole("button", { name })).toHaveAccessibleDescription(REASON);
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
