import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ensureViewerCookie, newViewerId, readCookie, signViewerCookie, VIEWER_COOKIE, verifyViewerCookie } from "@/lib/viewer/viewer-cookie";

const SECRET = "unit-test-secret-0123456789abcdef";
const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;
const id = newViewerId();
const valid = signViewerCookie(id, SECRET, NOW);

describe("verifyViewerCookie", () => {
  test.each([
    ["a fresh cookie", valid, id],
    ["399 days old", signViewerCookie(id, SECRET, NOW - 399 * DAY), id],
    ["401 days old (expired)", signViewerCookie(id, SECRET, NOW - 401 * DAY), null],
    ["issued in the future", signViewerCookie(id, SECRET, NOW + DAY), null],
    ["signed under another secret", signViewerCookie(id, "another-secret-0123456789abcdef", NOW), null],
    ["another id with this signature", `${newViewerId()}.${valid.split(".").slice(1).join(".")}`, null],
    ["no signature", valid.split(".").slice(0, 2).join("."), null],
    ["the bare id", id, null],
    ["empty", "", null],
    ["absent", undefined, null],
  ])("%s", (_name, value, expected) => {
    expect(verifyViewerCookie(value, SECRET, NOW)).toBe(expected);
  });

  test("any other string is nobody: every change to a valid cookie's bytes is refused", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.nat(), (junk, at) => {
        const i = at % (valid.length + 1);
        const mutated = valid.slice(0, i) + junk + valid.slice(i + (junk.length ? 1 : 0));
        fc.pre(mutated !== valid);
        expect(verifyViewerCookie(mutated, SECRET, NOW)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});

describe("ensureViewerCookie (what the proxy does)", () => {
  test("keeps a valid cookie, re-signs a week-old one with the same id, replaces anything else with a new id", () => {
    expect(ensureViewerCookie(`a=b; ${VIEWER_COOKIE}=${valid}`, SECRET, NOW)).toEqual({ value: valid, renewed: false });
    const old = signViewerCookie(id, SECRET, NOW - 8 * DAY);
    const renewed = ensureViewerCookie(`${VIEWER_COOKIE}=${old}`, SECRET, NOW);
    expect(renewed.renewed).toBe(true);
    expect(verifyViewerCookie(renewed.value, SECRET, NOW)).toBe(id);
    for (const header of [null, `${VIEWER_COOKIE}=${valid}x`, `${VIEWER_COOKIE}=${signViewerCookie(id, SECRET, NOW - 500 * DAY)}`]) {
      const fresh = ensureViewerCookie(header, SECRET, NOW);
      const freshId = verifyViewerCookie(fresh.value, SECRET, NOW);
      expect(freshId).toMatch(/^[\w-]{22}$/);
      expect(freshId).not.toBe(id);
    }
  });

  test("readCookie finds the named cookie among others", () => {
    expect(readCookie(`x=1; ${VIEWER_COOKIE}=abc; y=2`, VIEWER_COOKIE)).toBe("abc");
    expect(readCookie(`x${VIEWER_COOKIE}=abc`, VIEWER_COOKIE)).toBeUndefined();
  });
});
