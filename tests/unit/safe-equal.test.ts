import { describe, expect, test } from "vitest";
import { hasBearerToken, safeEqual } from "@/lib/viewer/safe-equal";

describe("safeEqual", () => {
  test.each([
    ["s3cret", "s3cret", true],
    ["s3cret", "s3creT", false],
    ["s3cre", "s3cret", false],
    ["", "", true],
    ["", "s3cret", false],
    ["ünïcode", "ünïcode", true],
  ])("%j against %j is %s", (given, expected, result) => {
    expect(safeEqual(given, expected)).toBe(result);
  });
});

describe("hasBearerToken", () => {
  test.each<[string | null, string | undefined, boolean]>([
    ["Bearer tok", "tok", true],
    ["bearer tok", "tok", false],
    ["Bearer tok ", "tok", false],
    ["Bearer TOK", "tok", false],
    ["tok", "tok", false],
    [null, "tok", false],
    ["Bearer ", "", false],
    ["Bearer undefined", undefined, false],
  ])("%j with secret %j is %s", (header, secret, result) => {
    expect(hasBearerToken(header, secret)).toBe(result);
  });
});
