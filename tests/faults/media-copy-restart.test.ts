// The app killed (SIGKILL) in the middle of copying a result into storage, and
// started again over the same database and media directory: the copy's lease
// runs out, the cron resumes it, and it completes once, whole, with nothing
// partial ever stored under its key.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { generatedByte } from "@/simulator/media";
import { waitFor } from "../support/app";
import { startSimulator } from "../support/global-setup";
import { SimulatorControl, uniqueMarker } from "../support/simulator-control";
import { freePort, startAppProcess, type AppProcess } from "./support/app-process";
import { fileDatabase } from "./support/database";

const db = fileDatabase();
const mediaDir = fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), "faults-media-dir-"));
const simulator = await startSimulator({ SIMULATOR_PENDING_MS: "200", SIMULATOR_PENDING_JITTER_MS: "0", SIMULATOR_LOG: "quiet" });
const control = new SimulatorControl(simulator.url);
const port = await freePort();
const appEnv = {
  DATABASE_URL: db.url,
  GATEWAY_BASE_URL: simulator.url,
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  MEDIA_STORAGE: "local",
  MEDIA_LOCAL_DIR: mediaDir,
  MEDIA_COPY_LEASE_MS: "1500",
  MEDIA_COPY_RETRY_MS: "100",
};
Object.assign(process.env, appEnv);
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");

const instances: AppProcess[] = [];
const startInstance = async () => {
  const instance = await startAppProcess({ port, env: appEnv });
  instances.push(instance);
  return instance;
};
afterAll(async () => {
  for (const instance of instances) await instance.kill();
  simulator.child.kill("SIGTERM");
});

const SIZE = 6 * 1024 * 1024;
// Each wait is for an event; this bound is only how long a loaded machine may take to reach it
// (two \`next start\`s, a copy resumed by the cron after its lease ran out).
const EVENT_MS = 120_000;

test("killed mid-copy, restarted: the copy resumes and completes once", async () => {
  // A retried run starts from a clean slate: not the instance its failed first
  // run left on this port, nor its rows (the cron would resume their copies),
  // nor its files (partial or whole).
  for (const instance of instances.splice(0)) await instance.kill();
  await prisma.mediaCopy.deleteMany();
  await prisma.generation.deleteMany();
  for (const entry of fs.readdirSync(mediaDir)) fs.rmSync(path.join(mediaDir, entry), { recursive: true, force: true });
  const marker = uniqueMarker("copykill");
  // A 6 MB file at 1.5 MB/s: the copy is still running when the app dies.
  await control.scenario({ match: marker, media: { sizeBytes: SIZE, bytesPerSecond: 1_500_000 } });
  const before = await startInstance();
  const submitted = await fetch(`${before.url}/api/generations`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `keeper ${marker}`, duration: 2 } }),
  });
  const { id } = (await submitted.json()) as { id: string };
  // The callback lands, the copy starts and gets some way in: its partial file has bytes.
  const copying = await waitFor(async () => {
    const row = await prisma.mediaCopy.findFirst({ where: { generationId: id, state: "COPYING" } });
    return row && row;
  }, EVENT_MS);
  const partialBytes = () => {
    const dir = path.join(mediaDir, ".partial");
    return fs.existsSync(dir) ? fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0) : 0;
  };
  await waitFor(() => partialBytes() > 0, EVENT_MS);
  await before.kill("SIGKILL");
  const key = path.join(mediaDir, copying.storageKey);
  expect(fs.existsSync(key)).toBe(false);
  expect(fs.readdirSync(path.join(mediaDir, ".partial")).length).toBe(1);

  const after = await startInstance();
  const row = await waitFor(async () => {
    await fetch(`${after.url}/api/cron/reconcile`, { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    const done = await prisma.mediaCopy.findFirst({ where: { generationId: id, state: "DONE" } });
    return done && done;
  }, EVENT_MS);

  expect(await prisma.mediaCopy.count({ where: { generationId: id } })).toBe(1);
  expect(row).toMatchObject({ attempts: 2, size: SIZE, lastError: null });
  const stored = fs.readFileSync(key);
  expect(stored.length).toBe(SIZE);
  for (const i of [0, 65_535, 65_536, SIZE - 1]) expect(stored[i]).toBe(generatedByte(i));
  // Two downloads: the one cut by the crash, and one whole one.
  // The simulator logs a download's bytes when its response has closed, a moment after the app has them all.
  const downloads = await waitFor(async () => {
    const gets = (await control.media(marker)).filter((m) => m.method === "GET");
    return gets.length >= 2 && gets.every((m) => m.bytes > 0) ? gets : null;
  }, EVENT_MS);
  expect(downloads).toHaveLength(2);
  expect(downloads[0]!.bytes).toBeLessThan(SIZE);
  expect(downloads[1]!.bytes).toBe(SIZE);
}, 300_000);
