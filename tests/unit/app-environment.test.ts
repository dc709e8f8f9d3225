// `npm start` and `npm run dev` bound glibc's malloc arenas for the app on
// Linux (sharp's threads each keep one otherwise), unless the operator chose.
import { describe, expect, test } from "vitest";
import { appEnvironment } from "@/scripts/app-environment";

describe("the app's environment", () => {
  test("on Linux: two malloc arenas, telemetry off, the operator's settings kept", () => {
    const env = appEnvironment({ NODE_ENV: "production", DATABASE_URL: "file:./data/x.db" }, "linux");
    expect(env).toMatchObject({ MALLOC_ARENA_MAX: "2", NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: "file:./data/x.db" });
  });

  test("the operator's own MALLOC_ARENA_MAX and telemetry choice win", () => {
    expect(appEnvironment({ NODE_ENV: "production", MALLOC_ARENA_MAX: "4", NEXT_TELEMETRY_DISABLED: "0" }, "linux")).toMatchObject({ MALLOC_ARENA_MAX: "4", NEXT_TELEMETRY_DISABLED: "0" });
  });

  test("elsewhere (macOS, Windows: not glibc) nothing is set for the allocator", () => {
    expect(appEnvironment({ NODE_ENV: "production" }, "darwin").MALLOC_ARENA_MAX).toBeUndefined();
    expect(appEnvironment({ NODE_ENV: "production" }, "win32").MALLOC_ARENA_MAX).toBeUndefined();
  });
});
