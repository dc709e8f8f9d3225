// The simulator fetches every input URL of a task, as a real gateway does:
// frames must be images and references videos; one it cannot fetch, or of the
// wrong kind, fails the task at once with a message that names it, at no charge.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { plainText } from "../support/media-fixtures";
import { inputBase, inputFiles, inputs, launchSimulator, marker, waitFor } from "./harness";

const sim = await launchSimulator({ SIMULATOR_START_CREDITS: "50", SIMULATOR_PENDING_MS: "300", SIMULATOR_PENDING_JITTER_MS: "0" });
afterAll(() => sim.stop());
beforeEach(() => sim.control.reset());
inputFiles.set("/notes.png", plainText());

async function finished(input: Record<string, unknown>, model: string) {
  const { status, taskId } = await sim.submit(input, { model });
  expect(status).toBe(200);
  await waitFor(async () => (await sim.task(taskId)).state !== "PENDING");
  return sim.task(taskId);
}

describe("input files", () => {
  test("both frames are fetched, then the task succeeds", async () => {
    const m = marker("frames");
    const task = await finished(inputs.frames(`bud ${m}`, 2), "alpha-2.5-first-last-frame-480p");
    expect(task.state).toBe("SUCCESS");
    const fetched = await sim.control.inputs(m);
    expect(fetched.map((f) => [f.field, f.status, f.ok])).toEqual([
      ["first_frame_url", 200, true],
      ["last_frame_url", 200, true],
    ]);
    expect(fetched.every((f) => f.bytes > 0)).toBe(true);
  });

  test("every reference video is fetched", async () => {
    const m = marker("refs");
    const task = await finished({ prompt: `dance ${m}`, reference_video_urls: [`${inputBase}/ref.mp4`, `${inputBase}/ref.mp4`] }, "delta-h3/reference-to-video");
    expect(task.state).toBe("SUCCESS");
    expect((await sim.control.inputs(m)).map((f) => f.field)).toEqual(["reference_video_urls[0]", "reference_video_urls[1]"]);
  });

  test.each([
    ["a frame that answers 404", { first_frame_url: `${inputBase}/missing.png` }, "alpha-2.5-first-last-frame-480p", /^Could not use input first_frame_url: fetching it answered HTTP 404\.$/],
    ["a frame on a closed port", { last_frame_url: "http://127.0.0.1:9/last.png" }, "alpha-2.5-first-last-frame-480p", /^Could not use input last_frame_url: the URL could not be fetched/],
    ["a text file named .png", { first_frame_url: `${inputBase}/notes.png` }, "alpha-2.5-first-last-frame-480p", /first_frame_url: the file is neither an image nor a video; this model takes an image there\./],
    ["an image where a video goes", { reference_video_urls: [`${inputBase}/first.png`] }, "gamma/reference-to-video", /reference_video_urls\[0\]: the file is an image; this model takes a video there\./],
  ])("%s fails the task at no charge", async (_name, override, model, message) => {
    const m = marker("bad-input");
    const before = await sim.credits();
    const base = model.startsWith("alpha") ? inputs.frames(`bad ${m}`, 2) : inputs.reference(`bad ${m}`, 2);
    const task = await finished({ ...base, ...override }, model);
    expect(task).toMatchObject({ state: "FAILURE", creditsConsumed: 0, failCode: "input_fetch_failed", failMsg: expect.stringMatching(message) });
    expect(await sim.credits()).toEqual({ credits: before.credits, held: 0 });
  });
});
