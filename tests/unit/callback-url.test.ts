import { describe, expect, test } from "vitest";
import { isPrivateHost } from "@/lib/generations/callback-url";

describe("isPrivateHost: could a remote gateway reach a callback here?", () => {
  test.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["[::1]", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["192.168.1.20", true],
    ["169.254.169.254", true],
    ["0.0.0.0", true],
    ["my-laptop", true],
    ["printer.local", true],
    ["api.internal", true],
    ["172.32.0.1", false],
    ["8.8.8.8", false],
    ["app.example.com", false],
    ["framehook.vercel.app", false],
  ])("%s → %s", (host, expected) => {
    expect(isPrivateHost(host)).toBe(expected);
  });
});
