import { describe, expect, test } from "vitest";
import { estimateCostUsd, findModel, formatCostEstimate, MODELS } from "@/lib/models/catalog";
import { parseGenerationRequest } from "@/lib/models/input-schema";

const url = "https://example.com/a.png";
const video = "https://example.com/ref.mp4";
const upload = "upl_0123456789abcdefghijklmn";

describe("model catalog", () => {
  test("offers exactly the six models of the spec", () => {
    expect(MODELS.map((m) => m.id).sort()).toEqual(
      [
        "alpha-2.5-first-last-frame-480p",
        "alpha-2.5-text-to-video",
        "alpha-2.5-text-to-video-480p",
        "beta-1-1/reference-to-video",
        "delta-h3/reference-to-video",
        "gamma/reference-to-video",
      ].sort(),
    );
  });

  test.each([
    ["alpha-2.5-text-to-video-480p", 5, "≈ $0.70"],
    ["alpha-2.5-text-to-video-480p", 10, "≈ $1.41"],
    ["delta-h3/reference-to-video", 4, "≈ $0.47"],
    ["beta-1-1/reference-to-video", 5, "pay-per-use"],
    ["gamma/reference-to-video", 5, "pay-per-use"],
  ])("%s for %i s costs %s", (id, seconds, label) => {
    expect(formatCostEstimate(findModel(id)!, seconds)).toBe(label);
  });

  test("the estimate defaults to 5 seconds", () => {
    expect(estimateCostUsd(findModel("alpha-2.5-text-to-video")!, undefined)).toBeCloseTo(0.704);
  });
});

describe("parseGenerationRequest", () => {
  test.each([
    ["text to video, prompt only", "alpha-2.5-text-to-video-480p", { prompt: "  a fox  " }, { prompt: "a fox" }],
    ["text to video, all fields from a form", "alpha-2.5-text-to-video", { prompt: "a", duration: "4", aspect_ratio: "9:16", negative_prompt: "", seed: "7" }, { prompt: "a", duration: 4, aspect_ratio: "9:16", seed: 7 }],
    ["first and last frame", "alpha-2.5-first-last-frame-480p", { prompt: "a", first_frame_url: url, last_frame_url: url }, { prompt: "a", first_frame_url: url, last_frame_url: url }],
    ["upload ids where URLs go", "alpha-2.5-first-last-frame-480p", { prompt: "a", first_frame_url: upload, last_frame_url: url }, { prompt: "a", first_frame_url: upload, last_frame_url: url }],
    ["reference URLs as lines", "delta-h3/reference-to-video", { prompt: "a", reference_video_urls: `${video}\n${video}` }, { prompt: "a", reference_video_urls: [video, video] }],
  ])("accepts %s", (_name, model, input, expected) => {
    const result = parseGenerationRequest({ model, input });
    expect(result).toEqual({ ok: true, model: expect.objectContaining({ id: model }), input: expected });
  });

  test.each([
    ["a blank prompt", "alpha-2.5-text-to-video-480p", { prompt: "   " }, "prompt", "Required"],
    ["a missing prompt", "alpha-2.5-text-to-video-480p", {}, "prompt", "Required"],
    ["an over-long prompt", "alpha-2.5-text-to-video-480p", { prompt: "x".repeat(2001) }, "prompt", "At most 2000 characters"],
    ["a duration past the maximum", "alpha-2.5-text-to-video-480p", { prompt: "a", duration: 11 }, "duration", "At most 10"],
    ["a fractional duration", "alpha-2.5-text-to-video-480p", { prompt: "a", duration: 2.5 }, "duration", "Enter a whole number"],
    ["an unknown aspect ratio", "alpha-2.5-text-to-video-480p", { prompt: "a", aspect_ratio: "4:3" }, "aspect_ratio", "One of 16:9, 9:16, 1:1"],
    ["a javascript: frame URL", "alpha-2.5-first-last-frame-480p", { prompt: "a", first_frame_url: "javascript:alert(1)", last_frame_url: url }, "first_frame_url", "Upload a file, or enter an http(s) URL"],
    ["an upload id of the wrong shape", "alpha-2.5-first-last-frame-480p", { prompt: "a", first_frame_url: "upl_../../etc", last_frame_url: url }, "first_frame_url", "Upload a file, or enter an http(s) URL"],
    ["a missing last frame", "alpha-2.5-first-last-frame-480p", { prompt: "a", first_frame_url: url }, "last_frame_url", "Required"],
    ["no reference URL", "gamma/reference-to-video", { prompt: "a", reference_video_urls: "" }, "reference_video_urls", "Required"],
    ["four reference URLs", "gamma/reference-to-video", { prompt: "a", reference_video_urls: [video, video, video, video] }, "reference_video_urls", "At most 3 videos"],
    ["an unknown field", "alpha-2.5-text-to-video-480p", { prompt: "a", api_key: "x" }, "api_key", "Not an input of alpha-2.5-text-to-video-480p"],
  ])("refuses %s with a field error", (_name, model, input, field, message) => {
    const result = parseGenerationRequest({ model, input });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.fieldErrors[field]).toContain(message);
  });

  test("refuses an unlisted model", () => {
    expect(parseGenerationRequest({ model: "sora-9", input: { prompt: "a" } })).toEqual({
      ok: false,
      fieldErrors: { model: ["Choose one of the listed models"] },
    });
  });
});
