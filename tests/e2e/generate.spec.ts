// Submitting each kind of model, and what the user sees when input is wrong or
// the gateway is down.
import { SIMULATOR_URL } from "../../playwright.config";
import { clip, image } from "../support/media-fixtures";
import { expect, test } from "./fixtures";

test("text to video: a prompt becomes a playable video by callback, with the credits it cost", async ({ gallery, simulator }) => {
  const prompt = simulator.prompt("A paper boat drifting down a rain-soaked street");
  await gallery.goto();
  await gallery.chooseModel("alpha-2.5-text-to-video-480p");
  await expect(gallery.page.getByTestId("cost-estimate")).toHaveText("11 credits");
  await gallery.submit(prompt);

  await expect(gallery.badge(prompt)).toHaveText("Generating");
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const card = gallery.card(prompt);
  // The visitor's credits (the gateway charged 0.704 of its own: the operator's cost).
  await expect(card.getByTestId("generation-credits")).toHaveText("11 credits");

  // The grid holds no player until a tile is hovered (stills.spec.ts).
  await card.getByRole("button", { name: /in the viewer/ }).hover();
  const video = card.locator("video");
  // The gateway's link, or the app's stored copy of it once made (keep-videos.spec.ts).
  await expect(video).toHaveAttribute("src", new RegExp(`^(${SIMULATOR_URL}/media/task_|/api/media/)`));
  // The browser really loads the result. Read in one go: the player may switch to the stored
  // copy meanwhile (its src changes and it loads again), and a duration read apart from the
  // readyState that promised it would then be NaN.
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => (v.readyState >= 1 ? v.duration : 0))).toBeGreaterThan(1);

  // It arrived by callback: delivered once, accepted.
  const [task] = await simulator.tasks();
  expect(task).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.704 });
  expect(await simulator.callbacks()).toEqual([expect.objectContaining({ taskId: task!.taskId, status: 200 })]);
});

test("first and last frame: uploaded images go to the gateway and the video arrives", async ({ gallery, simulator }) => {
  const prompt = simulator.prompt("The bud opens into a flower");
  await gallery.goto();
  await gallery.chooseModel("alpha-2.5-first-last-frame-480p");
  await gallery.attach("First frame", { name: "bud.png", mimeType: "image/png", buffer: image() });
  await gallery.attach("Last frame", { name: "flower.png", mimeType: "image/png", buffer: image() });
  await gallery.submit(prompt, { "Duration (s)": "4" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  // $0.5632 at the gateway × 1.5 ÷ $0.10 = 8.448, rounded up.
  await expect(gallery.card(prompt).getByTestId("generation-credits")).toHaveText("9 credits");
  const [task] = await simulator.tasks();
  expect(task).toMatchObject({ model: "alpha-2.5-first-last-frame-480p", state: "SUCCESS" });
});

test("reference to video: an uploaded reference goes to the gateway; pay-per-use holds at the assumed rate", async ({ gallery, simulator }) => {
  const prompt = simulator.prompt("Same dance, but underwater");
  await gallery.goto();
  await gallery.chooseModel("gamma/reference-to-video");
  // $0.15/s assumed: 5 s × 0.15 × 1.5 ÷ $0.10 = 11.25, rounded up.
  await expect(gallery.page.getByTestId("cost-estimate")).toHaveText("12 credits");
  await gallery.attach("Reference videos", { name: "dance.mp4", mimeType: "video/mp4", buffer: clip({ seconds: 1 }) });
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const [task] = await simulator.tasks();
  expect(task).toMatchObject({ model: "gamma/reference-to-video", state: "SUCCESS" });
});

test("invalid input: errors beside the fields, nothing sent to the gateway", async ({ gallery, simulator }) => {
  await gallery.goto();
  await gallery.page.getByRole("button", { name: "Generate video" }).click();
  await expect(gallery.page.getByText("Required")).toBeVisible();
  await expect(gallery.page.getByLabel("Prompt", { exact: true })).toHaveAttribute("aria-invalid", "true");

  const prompt = simulator.prompt("Too long a clip");
  await gallery.submit(prompt, { "Duration (s)": "60" });
  await expect(gallery.page.getByText("At most 10")).toBeVisible();
  await expect(gallery.formStatus).toHaveText("Check the highlighted fields.");
  // What the user typed is still there to correct.
  await expect(gallery.page.getByLabel("Prompt", { exact: true })).toHaveValue(prompt);
  expect(await simulator.requests()).toEqual([]);
  await expect(gallery.card(prompt)).toHaveCount(0);
});

test("gateway down at submit: a clear error and a Not submitted card; the next submit works once it is back", async ({ gallery, simulator }) => {
  // Unavailable for the three attempts the app makes, then back.
  await simulator.scenario({ submitStatus: 503, retryAfterSeconds: 0, times: 3 });
  const first = simulator.prompt("Lighthouse in a storm");
  await gallery.goto();
  await gallery.submit(first);
  await expect(gallery.formStatus).toHaveText(/unavailable right now\. Nothing was charged/);
  await expect(gallery.badge(first)).toHaveText("Not submitted");
  await expect(gallery.card(first)).toContainText("Not charged.");

  const second = simulator.prompt("Lighthouse in a storm, take two");
  await gallery.submit(second);
  await expect(gallery.badge(second)).toHaveText("Ready");
  await expect(gallery.badge(first)).toHaveText("Not submitted");
});

test("a reload mid-generation resumes the pending card, which then completes", async ({ gallery, simulator }) => {
  await simulator.scenario({ pendingMs: 5000 });
  const prompt = simulator.prompt("Snow settling on a quiet street");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Generating");
  await gallery.page.reload();
  await expect(gallery.badge(prompt)).toHaveText("Generating");
  await expect(gallery.badge(prompt)).toHaveText("Ready", { timeout: 20_000 });
});
