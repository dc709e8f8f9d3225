// A copy always ends: a result host that stalls, trickles under the rate
// floor or outlasts the deadline has its attempt cut, recorded as retryable
// with the reason, and its lease released; and past the storage quota a copy
// fails visibly. Small limits here (a 2 s window, a 6 s deadline) stand for
// the minutes of production. A database of this file's own: the quota counts
// every stored copy, and other files' copies must not count against it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { readGeneration, submitPrompt } from "../support/generations";
import { uniqueMarker, type Scenario } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-limits-"));
const RETRY_MS = 60_000;
const QUOTA = 5_000_000;
const app = await startApp({
  env: {
    MEDIA_STORAGE: "local",
    MEDIA_LOCAL_DIR: MEDIA_DIR,
    MEDIA_COPY_MIN_BYTES_PER_SECOND: String(32 * 1024),
    MEDIA_COPY_RATE_WINDOW_MS: "2000",
    MEDIA_COPY_DEADLINE_MS: "6000",
    MEDIA_COPY_RETRY_MS: String(RETRY_MS),
    MEDIA_STORAGE_QUOTA_BYTES: String(QUOTA),
  },
});
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

/** Submits a prompt whose result downloads behave as `media` says, and returns its generation's id once SUCCESS. */
async function succeeded(label: string, media: Scenario["media"]) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, media });
  const { body } = await submitPrompt(app, `slow harbour ${marker}`);
  const id = body.id as string;
  await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS");
  return id;
}

/** The copy once its first attempt has ended (the transition starts it: nothing here runs it). */
const firstAttemptEnded = (id: string) =>
  waitFor(async () => {
    const row = await prisma.mediaCopy.findFirst({ where: { generationId: id } });
    return row && row.attempts >= 1 && row.state !== "COPYING" && row;
  }, 20_000);

const storedFiles = (id: string) => {
  const dir = path.join(MEDIA_DIR, "generations", id);
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe("a slow result host cannot hold a copy", () => {
  test.each([
    ["a 1 MB result at 4 KB/s", "trickle", { sizeBytes: 1_000_000, bytesPerSecond: 4096 }, /^The download was too slow: \d+ KB\/s under the 32 KB\/s floor over 2 s \(\d+ KB copied\)\.$/],
    ["a host that answers nothing for 8 s", "silent", { latencyMs: 8000 }, /^The download stalled: no data for 2 s \(0 KB copied\)\.$/],
    ["a 4 MB result at 100 KB/s (above the floor, 40 s in all)", "long", { sizeBytes: 4_000_000, bytesPerSecond: 100 * 1024 }, /^The download took too long: not finished within the 6 s deadline \(\d+ KB copied\)\.$/],
  ])("%s: the attempt is cut, says why, releases its lease and is retried later", async (_name, label, media, reason) => {
    const id = await succeeded(label, media);
    const row = await firstAttemptEnded(id);
    expect(row).toMatchObject({ state: "PENDING", attempts: 1, leaseUntil: null, size: null });
    expect(row.lastError).toMatch(reason);
    // Retryable, with backoff: due again MEDIA_COPY_RETRY_MS after the failure.
    expect(row.nextRunAt.getTime()).toBeGreaterThan(row.updatedAt.getTime() + RETRY_MS / 2);
    expect(storedFiles(id)).toEqual([]);
  });
});

test("past MEDIA_STORAGE_QUOTA_BYTES a copy fails visibly, and nothing more is stored", async () => {
  // The copies cut short above stored nothing: the whole quota is left.
  const first = await succeeded("quota-fits", { sizeBytes: 3_000_000 });
  expect(await waitFor(() => prisma.mediaCopy.findFirst({ where: { generationId: first, state: "DONE" } }))).toMatchObject({ size: 3_000_000 });

  const second = await succeeded("quota-over", { sizeBytes: 3_000_000 });
  const row = await firstAttemptEnded(second);
  expect(row).toMatchObject({ state: "FAILED", attempts: 1, leaseUntil: null });
  expect(row.lastError).toBe("Not stored: the file is larger than the 1.9 MB left in the media storage quota (MEDIA_STORAGE_QUOTA_BYTES).");
  expect(storedFiles(second)).toEqual([]);
  // What the detail page shows as the copy's status.
  const generation = (await readGeneration(app, second)) as unknown as { storedMedia: { status: string; error: string | null }[] };
  expect(generation.storedMedia).toEqual([expect.objectContaining({ status: "failed", error: row.lastError })]);
});
