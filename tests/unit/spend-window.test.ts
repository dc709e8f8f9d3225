import { describe, expect, test } from "vitest";
import { findModel } from "@/lib/models/catalog";
import { estimateCredits, spendWindowBounds } from "@/lib/generations/spend-limit";

describe("spendWindowBounds (UTC, fixed)", () => {
  test.each([
    ["hour", "2026-11-22T15:42:10Z", "2026-11-22T15:00:00.000Z", "2026-11-22T16:00:00.000Z"],
    ["day", "2026-11-22T15:42:10Z", "2026-11-22T00:00:00.000Z", "2026-11-23T00:00:00.000Z"],
    ["day", "2026-11-22T00:00:00Z", "2026-11-22T00:00:00.000Z", "2026-11-23T00:00:00.000Z"],
    // 2026-11-22 is a Sunday: the week began on Monday the 16th.
    ["week", "2026-11-22T23:59:59Z", "2026-11-16T00:00:00.000Z", "2026-11-23T00:00:00.000Z"],
    ["week", "2026-11-23T00:00:00Z", "2026-11-23T00:00:00.000Z", "2026-11-30T00:00:00.000Z"],
  ] as const)("%s at %s", (window, at, start, end) => {
    const bounds = spendWindowBounds(window, Date.parse(at));
    expect([bounds.start.toISOString(), bounds.end.toISOString()]).toEqual([start, end]);
  });
});

describe("estimateCredits", () => {
  test.each([
    ["alpha-2.5-text-to-video-480p", 2, 0.2816],
    ["alpha-2.5-text-to-video-480p", undefined, 0.704],
    ["delta-h3/reference-to-video", 10, 1.181],
    // Pay-per-use: the documented assumed rate, 0.15 credits per second.
    ["gamma/reference-to-video", 10, 1.5],
    ["beta-1-1/reference-to-video", undefined, 0.75],
  ])("%s for %s s", (id, seconds, credits) => {
    expect(estimateCredits(findModel(id)!, seconds)).toBe(credits);
  });
});
