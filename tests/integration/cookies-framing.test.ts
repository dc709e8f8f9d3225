// An app served over https (PUBLIC_BASE_URL https://…, production): the
// visitor cookie takes the __Host- prefix (Secure, Path=/, no Domain: no
// subdomain and no plain-http page can set or shadow it), and no page or
// API answer may be framed by another site (clickjacking).
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";

const app = await startApp({ env: { PUBLIC_BASE_URL: "https://framehook.example.test" } });

afterAll(() => app.close());

describe("the visitor cookie over https", () => {
  test("is __Host-framehook_viewer: Secure, Path=/, no Domain; sent back, it is the same visitor", async () => {
    const first = await fetch(new URL("/api/generations?limit=1", app.baseUrl));
    const line = first.headers.getSetCookie().find((cookie) => cookie.startsWith("__Host-framehook_viewer="));
    expect(line, first.headers.getSetCookie().join("\n")).toBeDefined();
    const attributes = line!.split(";").slice(1).map((a) => a.trim().toLowerCase());
    expect(attributes).toContain("secure");
    expect(attributes).toContain("path=/");
    expect(attributes.some((a) => a.startsWith("domain="))).toBe(false);
    expect(first.headers.getSetCookie().some((cookie) => cookie.startsWith("framehook_viewer="))).toBe(false);
    // The browser sends it back (over https): the same visitor, no new cookie.
    const pair = line!.split(";")[0]!;
    const again = await fetch(new URL("/api/generations?limit=1", app.baseUrl), { headers: { Cookie: pair } });
    expect(again.status).toBe(200);
    expect(again.headers.getSetCookie().filter((cookie) => cookie.includes("framehook_viewer"))).toEqual([]);
  });
});

describe("framing", () => {
  test.each(["/", "/sign-in", "/credits", "/api/health", "/api/generations?limit=1", "/does-not-exist"])("%s may not be framed by any site", async (path) => {
    const response = await fetch(new URL(path, app.baseUrl), { redirect: "manual" });
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
  });
});
