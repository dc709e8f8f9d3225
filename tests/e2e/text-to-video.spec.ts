import { SIMULATOR_URL } from "../../playwright.config";
import { expect, test } from "./fixtures";

test("a prompt becomes a playable video by callback, with the credits it cost", async ({ gallery, simulator }) => {
  const prompt = simulator.prompt("A paper boat drifting down a rain-soaked street");
  await gallery.goto();
  await gallery.chooseModel("alpha-2.5-text-to-video-480p");
  await gallery.submit(prompt);

  const card = gallery.card(prompt);
  await expect(card.getByTestId("state-badge")).toHaveText("Generating");
  await expect(card.getByTestId("state-badge")).toHaveText("Ready");
  await expect(card.getByTestId("credits-consumed")).toHaveText("0.704 credits");

  const video = card.locator("video");
  await expect(video).toHaveAttribute("src", new RegExp(`^${SIMULATOR_URL}/media/task_`));
  // The browser can actually load and play the result.
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
  expect(await video.evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(1);

  // It arrived by callback, which the simulator delivered once and the app accepted.
  const [task] = await simulator.tasks();
  expect(task).toMatchObject({ state: "SUCCESS", creditsConsumed: 0.704 });
  const callbacks = await simulator.control.callbacks(simulator.marker);
  expect(callbacks).toEqual([expect.objectContaining({ taskId: task!.taskId, status: 200 })]);
});
