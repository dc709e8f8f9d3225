import { describe, expect, test } from "vitest";
import { findMediaField, findModel, type ModelSpec } from "@/lib/models/catalog";
import { describeLimits, mediaProblems, type MediaFacts } from "@/lib/models/media-limits";

const frames = findModel("alpha-2.5-first-last-frame-480p")!;
const delta = findModel("delta-h3/reference-to-video")!;
const gamma = findModel("gamma/reference-to-video")!;

const image = (facts: Partial<MediaFacts> = {}): MediaFacts => ({ format: "png", size: 200_000, width: 1024, height: 768, durationSeconds: null, fps: null, ...facts });
const clip = (facts: Partial<MediaFacts> = {}): MediaFacts => ({ format: "mp4", size: 3_000_000, width: 1280, height: 720, durationSeconds: 5, fps: 30, ...facts });

function problems(model: ModelSpec, field: string, facts: MediaFacts) {
  const spec = findMediaField(model, field)!;
  return mediaProblems({ facts, limits: spec.limits, modelLabel: model.label });
}

describe("media limits in the catalog", () => {
  test("each media field carries its limits, and the reference models differ in length only", () => {
    expect(findMediaField(frames, "first_frame_url")?.type).toBe("image");
    expect(findMediaField(frames, "prompt")).toBeUndefined();
    expect(findMediaField(delta, "reference_video_urls")?.limits).toMatchObject({ maxDurationSeconds: 10 });
    expect(findMediaField(gamma, "reference_video_urls")?.limits).toMatchObject({ maxDurationSeconds: 8 });
  });

  test.each([
    ["a fitting frame", frames, "first_frame_url", image(), []],
    ["a fitting clip", delta, "reference_video_urls", clip(), []],
    ["a clip too long", delta, "reference_video_urls", clip({ durationSeconds: 14 }), ["This clip is 14 s; Delta H3 reference takes up to 10 s."]],
    ["a clip whose header claims an hour", delta, "reference_video_urls", clip({ durationSeconds: 3600 }), ["This clip is 60 min; Delta H3 reference takes up to 10 s."]],
    ["a clip too short", delta, "reference_video_urls", clip({ durationSeconds: 0.4 }), ["This clip is 0.4 s; Delta H3 reference takes at least 1 s."]],
    ["a clip at 120 fps", delta, "reference_video_urls", clip({ fps: 120 }), ["This clip is 120 fps; Delta H3 reference takes up to 60 fps."]],
    ["a 4K clip", delta, "reference_video_urls", clip({ width: 3840, height: 2160 }), ["This clip is 3840 × 2160 px; Delta H3 reference takes up to 1920 × 1920 px."]],
    ["a clip of no known length", delta, "reference_video_urls", clip({ durationSeconds: null }), ["This clip's length cannot be read; Delta H3 reference needs to know it."]],
    ["a video where a frame goes", frames, "first_frame_url", clip(), ["This file is an MP4 video; Alpha 2.5 first & last frame · 480p takes PNG, JPEG or WebP images."]],
    ["an image where a clip goes", delta, "reference_video_urls", image({ format: "jpeg" }), ["This file is a JPEG image; Delta H3 reference takes MP4, QuickTime or WebM videos."]],
    ["a tiny frame", frames, "first_frame_url", image({ width: 100, height: 100 }), ["This image is 100 × 100 px; Alpha 2.5 first & last frame · 480p takes at least 256 × 256 px."]],
    ["a banner-shaped frame", frames, "first_frame_url", image({ width: 4000, height: 1000 }), ["This image is 4000 × 1000 px (4.00 wide per 1 high); Alpha 2.5 first & last frame · 480p takes shapes from 0.4 to 2.5."]],
    ["a heavy frame", frames, "last_frame_url", image({ size: 12 * 1024 * 1024 }), ["This image is 12 MB; Alpha 2.5 first & last frame · 480p takes up to 10 MB."]],
  ])("%s", (_name, model, field, facts, expected) => {
    expect(problems(model, field, facts)).toEqual(expected);
  });

  test("the form's help line names the limits", () => {
    expect(describeLimits(findMediaField(delta, "reference_video_urls")!.limits)).toBe("MP4, QuickTime or WebM videos · up to 100 MB · 256–1920 px wide · up to 10 s · up to 60 fps");
  });
});
