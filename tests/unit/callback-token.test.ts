import { describe, expect, test } from "vitest";
import { callbackTokenFor, verifyCallbackToken } from "@/lib/generations/callback-token";

const secret = "a-test-secret-of-enough-length";

describe("callback tokens", () => {
  const token = callbackTokenFor("gen_1", secret);

  test("a token verifies to the generation it was made for", () => {
    expect(verifyCallbackToken(token, secret)).toBe("gen_1");
  });

  test.each([
    ["missing", null],
    ["empty", ""],
    ["another generation's token with this id", `gen_1.${callbackTokenFor("gen_2", secret).split(".")[1]}`],
    ["made under another secret", callbackTokenFor("gen_1", "another-secret-entirely")],
    ["upper-cased", token.toUpperCase()],
    ["truncated", token.slice(0, -1)],
    ["no signature", "gen_1"],
    ["oversized", `gen_1.${"a".repeat(500)}`],
  ])("rejects a token that is %s", (_name, candidate) => {
    expect(verifyCallbackToken(candidate, secret)).toBeNull();
  });
});
