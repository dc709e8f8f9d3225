// Media work under load, against the real app (next start): twelve visitors
// upload a large valid PNG at once, and no good file is called damaged: each
// upload is either accepted or answered 503 "busy" with Retry-After. That the
// pool bounds the work (sharp and mediabunny take its slots as FFmpeg does)
// is the second test's: with one slot and no queue, the second upload is busy.
// Measured before uploads moved to npm packages, when each check was an
// FFmpeg process: 12 processes at once without the pool, 2 with it.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { upload } from "../support/uploads";

const app = await startApp();
const { env } = await import("@/lib/env");

afterAll(async () => {
  await app.close();
});

describe("twelve large uploads at once", () => {
  test("each is accepted or busy, never damaged", async () => {
    const png = fixtures.image({ width: 4096, height: 4096 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const visitor = app.visitor();
        const { status, body } = await upload(visitor, png);
        return { status, code: body.error?.code, message: body.error?.message ?? "" };
      }),
    );

    const accepted = answers.filter((a) => a.status === 201).length;
    const busy = answers.filter((a) => a.status === 503 && a.code === "media_busy").length;
    console.log(`[media-pool] 12 uploads of a 4096 × 4096 PNG: ${accepted} accepted, ${busy} busy (pool: ${env.MEDIA_CONCURRENCY})`);
    expect(answers.filter((a) => /damaged/i.test(a.message))).toEqual([]);
    expect(accepted + busy).toBe(12);
    expect(accepted).toBeGreaterThan(0);
  }, 180_000);

  test("a busy answer says so, and when to come back", async () => {
    // One slot and no queue: of two uploads at once, the second finds the server busy.
    const busy = await startApp({ env: { MEDIA_CONCURRENCY: "1", MEDIA_QUEUE_TIMEOUT_MS: "100" } });
    try {
      const png = fixtures.image({ width: 4096, height: 4096 });
      const responses = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const visitor = busy.visitor();
          await visitor.ownerId();
          return visitor("/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url", { method: "POST", body: new Uint8Array(png) });
        }),
      );
      const refused = responses.filter((r) => r.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const response of refused) {
        expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
        const { error } = (await response.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe("media_busy");
        expect(error.message).toMatch(/busy.*try again/i);
      }
      expect(responses.filter((r) => r.status !== 503 && r.status !== 201)).toEqual([]);
    } finally {
      await busy.close();
    }
  }, 180_000);
});
