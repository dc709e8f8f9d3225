// Slow copies that hold every download slot their host may take in the
// process (each above the rate floor, so none is cut for minutes) stop
// nothing else: a new SUCCESS still gets its copy jobs at once, and the cron
// answers within its budget, leaving the rest for its next run. A database
// of this file's own, so that its long copies are nobody else's due jobs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-slots-"));
const app = await startApp({
  env: {
    MEDIA_STORAGE: "local",
    MEDIA_LOCAL_DIR: MEDIA_DIR,
    MEDIA_COPY_MIN_BYTES_PER_SECOND: String(32 * 1024),
    MEDIA_COPY_DEADLINE_MS: "600000",
    MEDIA_CRON_BUDGET_MS: "1000",
  },
});
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { COPIES_PER_HOST } = await import("@/lib/copies/copy-jobs");

afterAll(async () => {
  // The slow downloads end with the simulator; their attempts are recorded as failed.
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

const SLOTS = 4;
/** 50 MB at 48 KB/s: above the floor, so each copy runs for about 17 minutes. */
const SLOW = { sizeBytes: 50_000_000, bytesPerSecond: 48 * 1024 };

async function submit(label: string, media?: typeof SLOW) {
  const marker = uniqueMarker(label);
  if (media) await app.simulator.scenario({ match: marker, media });
  const { body } = await submitPrompt(app, `long tide ${marker}`);
  return body.id as string;
}

test("with every slot a slow host may take held, a new SUCCESS still gets its copy job; the cron answers within its budget", async () => {
  // One more slow result than there are slots: the host's share of the slots
  // runs (the simulator is one host), the rest wait, PENDING, for one.
  const slow = await Promise.all(Array.from({ length: SLOTS + 1 }, (_, i) => submit(`slow-${i}`, SLOW)));
  const copying = () => prisma.mediaCopy.count({ where: { generationId: { in: slow }, state: "COPYING" } });
  await waitFor(
    async () => (await prisma.mediaCopy.count({ where: { generationId: { in: slow } } })) === SLOTS + 1 && (await copying()) === COPIES_PER_HOST,
    20_000,
  );

  const fresh = await submit("fresh");
  await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id: fresh } })).state === "SUCCESS");
  // Its job exists at once, whatever the slots are doing.
  const job = await waitFor(() => prisma.mediaCopy.findFirst({ where: { generationId: fresh } }), 10_000);
  expect(job.sourceUrl).toMatch(/\/media\//);
  expect(await copying()).toBe(COPIES_PER_HOST);

  // The cron takes the due jobs (the waiting slow ones among them), waits its
  // budget and answers; what still runs goes on under its lease.
  const response = await app.fetch("/api/cron/reconcile", {
    headers: { Authorization: `Bearer ${env.CRON_SECRET}` },
    signal: AbortSignal.timeout(20_000),
  });
  expect(response.status).toBe(200);
  const result = (await response.json()) as { mediaJobs: number; mediaJobsStillRunning: number };
  expect(result.mediaJobsStillRunning).toBeGreaterThanOrEqual(1);
  expect(await copying()).toBeGreaterThanOrEqual(SLOTS);
}, 60_000);
