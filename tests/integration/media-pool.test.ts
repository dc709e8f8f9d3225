// Media work under load, against the real app (next start): twelve visitors
// upload a large valid PNG at once. The app runs no more FFmpeg processes at
// once than its pool allows, and no good file is called damaged: each upload
// is either accepted or answered 503 "busy" with Retry-After.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import * as fixtures from "../support/media-fixtures";
import { upload } from "../support/uploads";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-pool-"));
const app = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local" } });
const { env } = await import("@/lib/env");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

/** The pids of the FFmpeg processes running under `root` (the app's process tree), read from /proc. */
function ffmpegUnder(root: number): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may hold spaces, so split after its closing parenthesis.
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const under = (pid: number): boolean => {
    for (let at = parents.get(pid), hops = 0; at !== undefined && hops < 20; at = parents.get(at), hops++) if (at === root) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => name === "ffmpeg" && under(pid)).map(([pid]) => pid);
}

describe("twelve large uploads at once", () => {
  test("run at most the pool's processes at once, and each is accepted or busy, never damaged", async () => {
    const png = fixtures.image({ width: 4096, height: 4096 });
    const root = app.server.child.pid!;
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, ffmpegUnder(root).length);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const visitor = app.visitor();
        const { status, body } = await upload(visitor, png);
        return { status, code: body.error?.code, message: body.error?.message ?? "" };
      }),
    ).finally(() => (sampling = false));
    await sampler;

    const accepted = answers.filter((a) => a.status === 201).length;
    const busy = answers.filter((a) => a.status === 503 && a.code === "media_busy").length;
    console.log(`[media-pool] 12 uploads of a 4096 × 4096 PNG: ${accepted} accepted, ${busy} busy; at most ${most} FFmpeg processes at once (pool: ${env.MEDIA_CONCURRENCY})`);
    expect(answers.filter((a) => /damaged/i.test(a.message))).toEqual([]);
    expect(accepted + busy).toBe(12);
    expect(accepted).toBeGreaterThan(0);
    // Whichever library checks the image (FFmpeg here, a process per file), no more run at once than the pool's slots.
    expect(most).toBeLessThanOrEqual(env.MEDIA_CONCURRENCY);
  }, 180_000);

  test("a busy answer says so, and when to come back", async () => {
    // One slot and no queue: of two uploads at once, the second finds the server busy.
    const busy = await startApp({ env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", MEDIA_CONCURRENCY: "1", MEDIA_QUEUE_TIMEOUT_MS: "100" } });
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
