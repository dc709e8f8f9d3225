// Readiness and a graceful stop, on the real server (`next start`): /api/ready
// names the check that keeps the instance out of rotation (migrations not
// current, a store that takes no write) and turns 200 once all pass; on
// SIGTERM the instance ends its live streams (their browsers reconnect
// elsewhere), hands its copy lease back, and exits by Next's own clean path
// (143) in a few seconds rather than waiting on open streams or on the idle
// keep-alive connections a proxy holds.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-readiness-"));
// The copy's lease outlives the test: only a hand-back frees it early.
const app = await startApp({ env: { MEDIA_STORAGE: "local", MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_COPY_LEASE_MS: "600000" } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

const ready = async () => {
  const response = await fetch(`${app.baseUrl}/api/ready`);
  return { status: response.status, body: (await response.json()) as { ready: boolean; failed?: string; checks: Record<string, string> } };
};
/** A GET whose body is kept as text; `ended` once the server ends the response. */
function openStream(url: string, options: http.RequestOptions) {
  return new Promise<{ status: number; text: () => string; ended: () => boolean }>((resolve, reject) => {
    http
      .get(url, options, (response) => {
        let text = "";
        let ended = false;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => (ended = true));
        resolve({ status: response.statusCode ?? 0, text: () => text, ended: () => ended });
      })
      .on("error", reject);
  });
}
const LATEST_MIGRATION = "(SELECT max(migration_name) FROM _prisma_migrations)";

test("503 naming the failed check until the migrations are current and the store takes a write, then 200", async () => {
  const shipped = (await prisma.$queryRawUnsafe<{ n: unknown }[]>("SELECT count(*) AS n FROM _prisma_migrations"))[0]!.n;
  // The latest migration rolled back, and the media folder a plain file: two checks fail.
  await prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = finished_at WHERE migration_name = ${LATEST_MIGRATION}`);
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
  fs.writeFileSync(MEDIA_DIR, "not a folder");
  try {
    const migrations = await ready();
    expect(migrations.status).toBe(503);
    expect(migrations.body).toMatchObject({ ready: false, failed: "migrations", checks: { shutdown: "running", database: "ok", migrations: `1 of ${Number(shipped)} pending` } });

    await prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = ${LATEST_MIGRATION}`);
    const storage = await ready();
    expect(storage.status).toBe(503);
    expect(storage.body).toMatchObject({ ready: false, failed: "storage", checks: { migrations: "ok", storage: "not writable" } });
  } finally {
    await prisma.$executeRawUnsafe("UPDATE _prisma_migrations SET rolled_back_at = NULL");
    fs.rmSync(MEDIA_DIR, { force: true });
    fs.mkdirSync(MEDIA_DIR, { recursive: true });
  }

  const fine = await ready();
  expect(fine).toEqual({ status: 200, body: { ready: true, checks: { shutdown: "running", database: "ok", migrations: "ok", storage: "ok" } } });
  // Nothing of the configuration is in the answer, and the probe's object is gone.
  for (const secret of [process.env.DATABASE_URL!, process.env.WEBHOOK_SECRET!, MEDIA_DIR]) expect(JSON.stringify(fine.body)).not.toContain(secret);
  expect(fs.readdirSync(path.join(MEDIA_DIR, "readiness"))).toEqual([]);
});

test("SIGTERM: the live stream ends, the copy's lease is handed back, and the process exits 143 within seconds", async () => {
  const marker = uniqueMarker("drain");
  // A 6 MB result at 500 kB/s: the copy is under way when the signal comes.
  await app.simulator.scenario({ match: marker, media: { sizeBytes: 6 * 1024 * 1024, bytesPerSecond: 500_000 } });
  // The stream over a keep-alive connection that stays open once the stream ends, as a proxy's upstream pool keeps it.
  const agent = new http.Agent({ keepAlive: true });
  const stream = await openStream(`${app.baseUrl}/api/generations/events`, { agent, headers: { Cookie: await app.fetch.cookieHeader() } });
  expect(stream.status).toBe(200);
  const { body } = await submitPrompt(app, `lighthouse ${marker}`);
  const copying = await waitFor(() => prisma.mediaCopy.findFirst({ where: { generationId: body.id as string, state: "COPYING" } }), 60_000);
  const changes = () => stream.text().split("\n").filter((line) => line.startsWith("data: {\"")).map((line) => JSON.parse(line.slice(6)) as { id?: string; state?: string });
  await waitFor(() => changes().some((change) => change.id === body.id && change.state === "SUCCESS"), 30_000);
  expect(stream.ended()).toBe(false);

  const child = app.server.child;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const signalled = Date.now();
  child.kill("SIGTERM");
  // Bounded generously for a loaded machine; what is asserted is the exit path and the rows.
  const code = await Promise.race([exited, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 20_000))]);
  const seconds = (Date.now() - signalled) / 1000;
  console.log(`[readiness-and-shutdown] exited ${code} ${seconds.toFixed(1)} s after SIGTERM`);
  expect(code).toBe(143);
  await waitFor(() => stream.ended(), 5_000);
  agent.destroy();
  expect(app.output()).toContain("SIGTERM: draining");

  const handedBack = await prisma.mediaCopy.findUniqueOrThrow({ where: { id: copying.id } });
  expect(handedBack).toMatchObject({ state: "PENDING", leaseUntil: null, attempts: 1, lastError: null });
  expect(handedBack.nextRunAt.getTime()).toBeLessThanOrEqual(Date.now());
  expect(fs.existsSync(path.join(MEDIA_DIR, copying.storageKey))).toBe(false);
});
