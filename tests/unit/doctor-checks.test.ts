// The doctor's pure verdicts: what an answer at the callback address means,
// which base URLs a remote gateway cannot call, the production secret rule,
// what works without FFmpeg, and the verdict a warning gets.
import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { classifyProbe, unreachableReason } from "@/lib/doctor/callbacks";
import { classifyInputProbe } from "@/lib/doctor/inputs";
import { checkAdmin, checkCron, checkFreeCredits, checkNodeVersion, checkSecrets, variableNames } from "@/lib/doctor/environment";
import { checkMediaToolchain } from "@/lib/doctor/media";
import { formatReport } from "@/lib/doctor/run-doctor";
import { toolchainVersion } from "@/lib/media/toolchain";

const hasFfmpeg = spawnSync("ffmpeg", ["-version"], { stdio: "ignore" }).status === 0;

describe("classifyProbe: GET on the receiver", () => {
  test.each([
    [405, {}, undefined],
    [401, { "www-authenticate": "Basic" }, /password or deployment protection/],
    [403, {}, /password or deployment protection/],
    [302, { location: "https://vercel.com/sso-api?url=x" }, /redirect to https:\/\/vercel\.com\/sso-api/],
    [308, { location: "https://www.example.com/api/webhooks/gateway" }, /a gateway does not follow redirects/],
    [200, { "content-type": "text/html; charset=utf-8" }, /answered 200 \(text\/html\).*a page/],
    [404, {}, /no Framehook receiver/],
    [502, {}, /answered 502, not the receiver's 405/],
  ])("%i → %s", (status, headers, problem) => {
    const verdict = classifyProbe(status, new Headers(headers));
    if (!problem) return expect(verdict).toEqual({ ok: true });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.detail).toMatch(problem);
  });
});

describe("classifyInputProbe: GET on an input link with no valid signature", () => {
  test.each([
    [404, "application/json", '{"error":{"code":"not_found","message":"No such input."}}', undefined],
    [404, "text/html", "<h1>Not found</h1>", /not the input route's 404/],
    [401, "text/plain", "Authentication required.", /password or deployment protection/],
    [307, "", "", /a redirect/],
    [200, "text/html", "<html>", /answered 200 \(text\/html\)/],
  ])("%i %s → %s", (status, type, body, problem) => {
    const verdict = classifyInputProbe(status, type, body);
    if (!problem) return expect(verdict).toEqual({ ok: true });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.detail).toMatch(problem);
  });
});

describe("unreachableReason: PUBLIC_BASE_URL as a remote gateway sees it", () => {
  const vercel = { VERCEL_URL: "app-abc123-team.vercel.app", VERCEL_BRANCH_URL: "app-git-main-team.vercel.app", VERCEL_PROJECT_PRODUCTION_URL: "app.example.com" };
  test.each([
    ["http://localhost:3000", {}, /local, private or link-local/],
    ["http://127.0.0.1:3000", {}, /local, private or link-local/],
    ["http://192.168.1.20:3000", {}, /local, private or link-local/],
    ["http://10.0.0.5", {}, /local, private or link-local/],
    ["http://169.254.169.254", {}, /local, private or link-local/],
    ["http://[fe80::1]:3000", {}, /local, private or link-local/],
    ["http://[fd00::2]:3000", {}, /local, private or link-local/],
    ["http://my-laptop.local:3000", {}, /local, private or link-local/],
    ["https://app-abc123-team.vercel.app", vercel, /preview URL/],
    ["https://app-git-main-team.vercel.app", vercel, /preview URL/],
    ["https://app.example.com", vercel, undefined],
    ["https://app-abc123-team.vercel.app", { VERCEL_URL: vercel.VERCEL_URL }, undefined],
    ["https://studio.example.com/base", {}, undefined],
  ])("%s", (url, source, problem) => {
    const reason = unreachableReason(url, source);
    if (problem) expect(reason).toMatch(problem);
    else expect(reason).toBeUndefined();
  });
});

describe("environment checks", () => {
  test.each([
    ["22.12.0", "ok"],
    ["24.11.0", "ok"],
    ["26.0.0", "ok"],
    ["22.11.0", "fail"],
    ["20.19.0", "fail"],
    ["18.20.4", "fail"],
  ])("Node %s → %s", (version, status) => {
    expect(checkNodeVersion(version).status).toBe(status);
  });

  test.each([
    [{ NODE_ENV: "development" }, "ok", undefined],
    [{ NODE_ENV: "production", WEBHOOK_SECRET: "w".repeat(32), CRON_SECRET: "c".repeat(32) }, "ok", undefined],
    [{ NODE_ENV: "production", WEBHOOK_SECRET: "w".repeat(31), CRON_SECRET: "c".repeat(32) }, "fail", /WEBHOOK_SECRET is too short/],
    [{ NODE_ENV: "production", WEBHOOK_SECRET: "w".repeat(32) }, "fail", /CRON_SECRET is missing/],
    [{ NODE_ENV: "production", WEBHOOK_SECRET: "", CRON_SECRET: "" }, "fail", /WEBHOOK_SECRET is missing, CRON_SECRET is missing/],
  ])("secrets %j → %s", (source, status, detail) => {
    const result = checkSecrets(source);
    expect(result.status).toBe(status);
    if (detail) expect(result.detail).toMatch(detail);
    expect(JSON.stringify(result)).not.toMatch(/w{31}|c{32}/);
  });

  test("cron: no CRON_SECRET fails with the schedule to set up", () => {
    expect(checkCron({ cronSecret: undefined, gatewayIsLocal: false })).toMatchObject({ status: "fail", fix: expect.stringContaining("/api/cron/reconcile") });
    expect(checkCron({ cronSecret: "x".repeat(40), gatewayIsLocal: false }).status).toBe("ok");
  });

  test("a .env file's names are read, never its values", () => {
    expect(variableNames("# comment\nGATEWAY_API_KEY=secret-value\nexport PUBLIC_BASE_URL = https://x\n  CRON_SECRET=\nnot a line\n")).toEqual([
      "GATEWAY_API_KEY",
      "PUBLIC_BASE_URL",
      "CRON_SECRET",
    ]);
  });
});

describe("media: one line per feature, FFmpeg only for stills and frames", () => {
  const lines = async (version: () => Promise<string | null>, storageEnabled = true) =>
    (await checkMediaToolchain({ storageEnabled, version })).map((r) => [r.name, r.status, r.detail]);

  // Shown as skipped on a machine without FFmpeg: the lines it would print there are the table's below.
  test.skipIf(!hasFfmpeg)("with this machine's FFmpeg: every line ok, naming its version", async () => {
    expect(await lines(toolchainVersion)).toEqual([
      ["Uploads", "ok", "images and videos are checked with npm packages (sharp, mediabunny): no FFmpeg needed"],
      ["Stills", "ok", expect.stringMatching(/^ffmpeg version \S+ makes a still of each stored video$/)],
      ["Use first/last frame", "ok", expect.stringMatching(/^ffmpeg version \S+ takes frames from stored videos$/)],
    ]);
  });

  test.each([
    ["not on PATH", async () => null],
    ["failing to run", async () => Promise.reject(new Error("spawn EACCES"))],
  ])("FFmpeg %s: uploads still work; stills and frames are warnings with the install fix", async (_name, version) => {
    const results = await checkMediaToolchain({ storageEnabled: true, version });
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ["Uploads", "ok"],
      ["Stills", "warn"],
      ["Use first/last frame", "warn"],
    ]);
    expect(results[1]!.detail).toMatch(/the gallery shows placeholders/);
    expect(results[2]!.detail).toMatch(/browsers take frames themselves from the stored copy, and the server's frame request answers 503 media_toolchain_missing/);
    for (const result of results.slice(1)) expect(result.fix).toMatch(/apt-get install ffmpeg.*brew install ffmpeg.*winget install/);
  });

  test("MEDIA_STORAGE=none: nothing to check", async () => {
    expect((await lines(async () => null, false)).map(([, status]) => status)).toEqual(["skip", "skip", "skip"]);
  });
});

describe("formatReport's verdict", () => {
  const okLine = { name: "Gateway", status: "ok", detail: "reachable" } as const;
  const stills = { name: "Stills", status: "warn", detail: "ffmpeg is not on PATH", fix: "install FFmpeg" } as const;
  const frames = { ...stills, name: "Use first/last frame" };
  const callbacks = { name: "Callbacks", status: "fail", detail: "unreachable", fix: "set PUBLIC_BASE_URL" } as const;

  test.each([
    ["all ok", [okLine], "All checks passed."],
    ["FFmpeg missing alone", [okLine, stills, frames], "No problems: 2 features off (marked !): the rest works without them."],
    ["a failure and FFmpeg missing", [callbacks, stills], "1 problem: until fixed, callbacks, tasks or credits may be lost. Also 1 feature off (marked !): the rest works without it."],
  ])("%s", (_name, results, verdict) => {
    const report = formatReport([...results]);
    expect(report.split("\n").at(-1)).toBe(verdict);
    if (results.includes(stills)) expect(report).toContain("! Stills: ffmpeg is not on PATH\n    fix: install FFmpeg");
  });

  test("a missing FFmpeg never says callbacks or credits may be lost", async () => {
    const media = await checkMediaToolchain({ storageEnabled: true, version: async () => null });
    const report = formatReport([okLine, ...media]);
    expect(report).not.toMatch(/callbacks|credits|✗/);
    expect(report.split("\n").at(-1)).toBe("No problems: 2 features off (marked !): the rest works without them.");
  });
});

describe("free credits (checkFreeCredits)", () => {
  const base = { production: true, totalSpendCap: 0, welcomeGrant: 25, welcomeGrantsPerDay: 0, creditsEnabled: true };
  test.each([
    ["production, no ceiling and no total cap: a warning", base, "warn"],
    ["a daily ceiling", { ...base, welcomeGrantsPerDay: 1000 }, "ok"],
    ["a total spending cap", { ...base, totalSpendCap: 50 }, "ok"],
    ["development", { ...base, production: false }, "ok"],
    ["no welcome grant", { ...base, welcomeGrant: 0 }, "ok"],
    ["credits off", { ...base, creditsEnabled: false }, "ok"],
  ] as const)("%s", (_name, input, status) => {
    const result = checkFreeCredits(input);
    expect(result.status).toBe(status);
    if (status === "warn") expect(result.fix).toContain("CREDITS_WELCOME_GRANTS_PER_DAY");
  });
});

describe("/admin (checkAdmin)", () => {
  test.each([
    ["off: a warning that says what to set", undefined, [], "warn"],
    ["a password", "x".repeat(12), [], "ok"],
    ["admin emails", undefined, ["ops@example.com"], "ok"],
  ] as const)("%s", (_name, adminPassword, adminEmails, status) => {
    const result = checkAdmin({ adminPassword, adminEmails: [...adminEmails] });
    expect(result.status).toBe(status);
    if (status === "warn") expect(result.fix).toMatch(/ADMIN_PASSWORD .*ADMIN_EMAILS/);
  });
});
