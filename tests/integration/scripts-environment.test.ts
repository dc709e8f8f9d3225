// `npm start` and `npm run dev` with a bad environment: the message that says
// which variables are wrong and how to fix them, alone on stderr (no stack
// trace around it), and exit code 1. Run from an empty directory, so that no
// .env file of the developer's fills the gaps.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = process.cwd();
const TSX = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

function run(script: string, env: Record<string, string>) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-env-"));
  try {
    const { status, stdout, stderr } = spawnSync(process.execPath, [TSX, path.join(ROOT, "scripts", script)], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
      timeout: 60_000,
    });
    return { status, stdout, stderr };
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

describe("a bad environment", () => {
  test("npm start without secrets: the message alone, exit 1", () => {
    const { status, stdout, stderr } = run("start.ts", {});
    expect(status).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^\[framehook\] Invalid environment configuration:\n {2}WEBHOOK_SECRET: is required in production/);
    expect(stderr).toContain("CRON_SECRET: is required in production");
    expect(stderr.trimEnd().endsWith("See .env.example.")).toBe(true);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain("throw new");
  });

  test("npm run dev with a variable out of range: the message alone, exit 1", () => {
    const { status, stderr } = run("dev.ts", { GATEWAY_TIMEOUT_MS: "5" });
    expect(status).toBe(1);
    expect(stderr).toMatch(/^\[framehook\] Invalid environment configuration:\n {2}GATEWAY_TIMEOUT_MS: /);
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});
