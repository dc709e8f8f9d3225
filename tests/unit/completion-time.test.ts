import { describe, expect, test } from "vitest";
import { COMPLETION_SAMPLES, completionTimeKey, formatRemaining, progressOf, typicalDurationMs } from "@/lib/generations/completion-time";

describe("typicalDurationMs", () => {
  test.each([
    ["no history", [], null],
    ["one sample", [42_000], 42_000],
    ["two samples: their midpoint", [40_000, 50_000], 45_000],
    ["odd count: the middle one", [30_000, 10_000, 20_000], 20_000],
    ["an outlier does not stretch it", [20_000, 21_000, 22_000, 3_600_000], 21_500],
    ["two outliers out of five", [20_000, 3_600_000, 21_000, 22_000, 7_200_000], 22_000],
    ["nonsense is ignored", [Number.NaN, -5, 30_000], 30_000],
  ])("%s", (_name, samples, expected) => {
    expect(typicalDurationMs(samples)).toBe(expected);
  });

  test(`only the newest ${COMPLETION_SAMPLES} count`, () => {
    const recent = Array.from({ length: COMPLETION_SAMPLES }, () => 10_000);
    expect(typicalDurationMs([...recent, ...Array.from({ length: 100 }, () => 90_000)])).toBe(10_000);
  });
});

describe("progressOf", () => {
  test.each([
    ["no history: no bar", { elapsedMs: 5_000, typicalMs: null, overdue: false }, { kind: "unknown" }],
    ["on track", { elapsedMs: 15_000, typicalMs: 60_000, overdue: false }, { kind: "on-track", fraction: 0.25, remainingMs: 45_000 }],
    ["past the estimate", { elapsedMs: 61_000, typicalMs: 60_000, overdue: false }, { kind: "slow" }],
    ["overdue wins over everything", { elapsedMs: 5_000, typicalMs: 60_000, overdue: true }, { kind: "overdue" }],
    ["overdue without history", { elapsedMs: 5_000, typicalMs: null, overdue: true }, { kind: "overdue" }],
    ["a clock behind the server", { elapsedMs: -2_000, typicalMs: 60_000, overdue: false }, { kind: "on-track", fraction: 0, remainingMs: 60_000 }],
  ])("%s", (_name, args, expected) => {
    expect(progressOf(args)).toEqual(expected);
  });
});

describe("formatRemaining", () => {
  test.each([
    [3_000, "a few seconds"],
    [24_000, "about 20 seconds"],
    [50_000, "about a minute"],
    [80_000, "about a minute"],
    [150_000, "about 3 minutes"],
    [3_700_000, "about an hour"],
    [9_000_000, "about 3 hours"],
  ])("%i ms → %s", (ms, text) => {
    expect(formatRemaining(ms)).toBe(text);
  });
});

test("completionTimeKey separates durations of one model", () => {
  expect(completionTimeKey("m", { duration: 5 })).not.toBe(completionTimeKey("m", { duration: 10 }));
  expect(completionTimeKey("m", { duration: 5 })).toBe(completionTimeKey("m", { duration: "5" }));
  expect(completionTimeKey("m", {})).toBe("m|");
});
