// The image's suite (tests/image): run by `npm run test:image` once the
// production image is built (CI's image phase, .ci/run), never by `npm test`.
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/image/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 1,
    // Containers start and stop here: bounded generously for a loaded machine.
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
