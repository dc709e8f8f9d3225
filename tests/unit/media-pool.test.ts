// The media pool: no more tasks at once than its slots, a queue that refuses
// the one past its bound, and a wait that ends in "busy" at its deadline;
// busy is a 503 with Retry-After and words that say so.
import { describe, expect, test } from "vitest";
import { createMediaPool } from "@/lib/media/media-pool";

/** A task that runs until its `finish` is called. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { finish, task: () => done };
}

describe("the media pool", () => {
  test("runs at most `concurrency` tasks at once, and the others in turn", async () => {
    const pool = createMediaPool({ concurrency: 2, maxQueued: 10, queueTimeoutMs: 60_000 });
    let now = 0;
    let most = 0;
    const tasks = Array.from({ length: 7 }, (_, i) =>
      pool.run(async () => {
        most = Math.max(most, ++now);
        await new Promise((resolve) => setImmediate(resolve));
        now--;
        return i;
      }),
    );
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(most).toBe(2);
    expect(pool.stats()).toEqual({ running: 0, queued: 0, peakRunning: 2 });
  });

  test("a full queue is busy at once: 503 with Retry-After, never a word about the file", async () => {
    const pool = createMediaPool({ concurrency: 1, maxQueued: 2, queueTimeoutMs: 60_000 });
    const first = gate();
    const running = pool.run(first.task);
    const queued = [pool.run(async () => "a"), pool.run(async () => "b")];
    const refused = await pool.run(async () => "c").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "media_busy", status: 503, headers: { "Retry-After": expect.stringMatching(/^\d+$/) } });
    expect((refused as Error).message).toMatch(/busy.*try again/i);
    expect((refused as Error).message).not.toMatch(/damaged/i);
    first.finish();
    await running;
    expect(await Promise.all(queued)).toEqual(["a", "b"]);
  });

  test("a task that waits past the deadline is busy, and leaves the queue", async () => {
    const pool = createMediaPool({ concurrency: 1, maxQueued: 5, queueTimeoutMs: 50 });
    const first = gate();
    const running = pool.run(first.task);
    let ran = false;
    await expect(pool.run(async () => (ran = true))).rejects.toMatchObject({ code: "media_busy" });
    expect(pool.stats()).toMatchObject({ running: 1, queued: 0 });
    first.finish();
    await running;
    expect(ran).toBe(false);
    expect(await pool.run(async () => "after")).toBe("after");
  });

  test("a task that throws frees its slot", async () => {
    const pool = createMediaPool({ concurrency: 1, maxQueued: 1, queueTimeoutMs: 60_000 });
    await expect(pool.run(async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(await pool.run(async () => "next")).toBe("next");
    expect(pool.stats()).toMatchObject({ running: 0, queued: 0 });
  });
});
