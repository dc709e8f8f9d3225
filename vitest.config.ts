import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Next resolves "server-only" to an empty module on the server; so do we.
      "server-only": path.resolve(import.meta.dirname, "tests/support/empty.ts"),
    },
  },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts", "tests/simulator/**/*.test.ts", "tests/faults/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/file-database.ts"],
    pool: "forks",
    // On SQLite, two files at a time, each with a database, a simulator and an app of its
    // own (tests/support/file-database.ts); Vitest's default on 2 cores is one. PostgreSQL's
    // fault files start servers and pairs of instances of their own: two at once ran one of
    // them past its timeout on a CI run, so that pass takes one file at a time.
    maxWorkers: process.env.TEST_DATABASE === "postgres" ? 1 : 2,
    // Fault tests race real processes on a shared 2-core machine: on CI a
    // failure is tried once more (and reported as flaky) before it fails the run.
    retry: process.env.CI ? 1 : 0,
    // …and a test that passed only on its retry fails the run there, as in Playwright (failOnFlakyTests).
    reporters: process.env.CI ? ["default", "./tests/support/fail-on-flaky.ts"] : ["default"],
    // A hang detector, not a verdict: what a test waits for has a bound of its own
    // (waitFor). Tests that start a process under tsx or run FFmpeg took over 30 s
    // at load average 25 on 2 cores (docs/testing.md, "Under load").
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
