// Direct database access for the benchmarks: seeding rows the way the app
// would have written them, and reading back what the load did.
import { randomBytes } from "node:crypto";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaPg } from "@prisma/adapter-pg";
import { databaseEngine } from "../lib/database/engine";
import { PrismaClient } from "../lib/generated/prisma/client";
import { callbackTokenFor } from "../lib/generations/callback-token";
import { searchText } from "../lib/generations/search-text";
import { signViewerCookie, VIEWER_COOKIE } from "../lib/viewer/viewer-cookie";

export type BenchDb = PrismaClient;
export type SeededTask = { id: string; taskId: string; token: string };

const MODEL = "alpha-2.5-text-to-video-480p";
/** The owner of every seeded row; the benchmarks' requests carry this owner's cookie (benchViewerCookie). */
export const BENCH_OWNER = "bench-owner-0000000000";

/** The Cookie header of the seeded rows' owner (or of `owner`): galleries are per owner, so a request without it would list nothing. */
export function benchViewerCookie(secret: string, owner = BENCH_OWNER): string {
  return `${VIEWER_COOKIE}=${signViewerCookie(owner, secret)}`;
}
const CHUNK = 500;

/** The bench process's own client, generated for the engine of the phase (bench/run.ts generates it before the phase starts). */
export async function openDatabase(url: string): Promise<BenchDb> {
  if (databaseEngine(url) === "postgres") return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 4 }) });
  const prisma = new PrismaClient({ adapter: new PrismaLibSQL({ url }) });
  await prisma.$queryRawUnsafe("PRAGMA busy_timeout = 5000");
  // busy_timeout does not survive the adapter's transactions (they reopen the
  // connection), so a seed meeting the app's write lock is refused at once:
  // tried again here, as the app itself does (lib/database/sqlite.ts).
  return prisma.$extends({ query: { $allOperations: ({ args, query }) => retryWhileBusy(() => query(args)) } }) as unknown as BenchDb;
}

async function retryWhileBusy<T>(operation: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if ((error as { code?: string }).code !== "P1008" || attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** PENDING generations with distinct task ids, as a submit leaves them, and each one's callback token. */
export async function seedPending(db: BenchDb, { prefix, count, secret }: { prefix: string; count: number; secret: string }): Promise<SeededTask[]> {
  const now = new Date();
  const tasks = Array.from({ length: count }, (_, i) => {
    const id = `${prefix}-${String(i).padStart(6, "0")}`;
    return { id, taskId: `task_${id}`, token: callbackTokenFor(id, secret) };
  });
  for (let i = 0; i < tasks.length; i += CHUNK) {
    await db.generation.createMany({
      data: tasks.slice(i, i + CHUNK).map((t) => ({
        id: t.id,
        ownerId: BENCH_OWNER,
        taskId: t.taskId,
        model: MODEL,
        state: "PENDING" as const,
        prompt: `bench ${t.id}`,
        input: JSON.stringify({ duration: 5 }),
        lastHeardAt: now,
        createdAt: now,
      })),
    });
  }
  return tasks;
}

/** Finished generations, newest first from now backwards, as a busy gallery holds them. */
export async function seedSucceeded(db: BenchDb, { prefix, count, resultUrl }: { prefix: string; count: number; resultUrl: string }): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < count; i += CHUNK) {
    const rows = Array.from({ length: Math.min(CHUNK, count - i) }, (_, j) => {
      const n = i + j;
      const id = `${prefix}-${String(n).padStart(6, "0")}`;
      const createdAt = new Date(now - n * 1000);
      return {
        id,
        ownerId: BENCH_OWNER,
        taskId: `task_${id}`,
        model: MODEL,
        state: "SUCCESS" as const,
        prompt: `A paper boat drifting down a rain-soaked street at dusk, take ${n}`,
        input: JSON.stringify({ duration: 5, aspect_ratio: "16:9" }),
        resultUrls: JSON.stringify([resultUrl]),
        creditsConsumed: 0.704,
        lastHeardAt: createdAt,
        createdAt,
        completedAt: new Date(createdAt.getTime() + 30_000),
      };
    });
    await db.generation.createMany({ data: rows });
  }
}

/**
 * Finished generations planted beside real ones, as a long-lived gallery
 * holds them: each a copy of one of `models` in turn (same result, same
 * stored video and still, under a copy row of its own, so its media URLs are
 * its own), owned by `owner`, older than its model.
 */
export async function plantCopiesOf(db: BenchDb, { models, owner, count }: { models: string[]; owner: string; count: number }): Promise<void> {
  const generations = await db.generation.findMany({ where: { id: { in: models } } });
  const copies = await db.mediaCopy.findMany({ where: { generationId: { in: models } } });
  const rows = Array.from({ length: count }, (_, n) => {
    const model = generations[n % generations.length]!;
    const id = `c${randomBytes(12).toString("hex")}`;
    const prompt = `${model.prompt} (take ${n + 1})`;
    const createdAt = new Date(model.createdAt.getTime() - (n + 1) * 1000);
    return {
      generation: { ...model, id, ownerId: owner, taskId: null, idempotencyKey: null, prompt, promptSearch: searchText(prompt), createdAt },
      copies: copies.filter((c) => c.generationId === model.id).map((c) => ({ ...c, id: `m${randomBytes(12).toString("hex")}`, generationId: id })),
    };
  });
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await db.generation.createMany({ data: chunk.map((r) => r.generation) });
    await db.mediaCopy.createMany({ data: chunk.flatMap((r) => r.copies) });
  }
}

/**
 * The flat task body a gateway posts when a task succeeds. Its result URL is on
 * the simulator, which answers 404 for a task it never ran: the app's copy job
 * (one per SUCCESS, lib/copies) gives up at once, instead of retrying an
 * unreachable host in the background while the next benchmarks run.
 */
export function successBody(task: SeededTask, simulatorUrl: string): string {
  return JSON.stringify({
    taskId: task.taskId,
    state: "SUCCESS",
    resultUrls: [`${simulatorUrl}/media/${task.taskId}/sample-1.mp4`],
    creditsConsumed: 0.704,
  });
}

/** How the load ended for these generations: states, and the deliveries recorded for each. */
export async function tallyOutcomes(db: BenchDb, ids: string[]) {
  const rows = [];
  const deliveries = [];
  // SQLite bounds the parameters of one statement.
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    rows.push(...(await db.generation.findMany({ where: { id: { in: chunk } }, select: { id: true, state: true, creditsConsumed: true } })));
    deliveries.push(...(await db.delivery.groupBy({ by: ["generationId", "outcome"], where: { generationId: { in: chunk } }, _count: { _all: true } })));
  }
  const applied = new Map<string, number>();
  const outcomes: Record<string, number> = {};
  for (const d of deliveries) {
    outcomes[d.outcome] = (outcomes[d.outcome] ?? 0) + d._count._all;
    if (d.outcome === "APPLIED" && d.generationId) applied.set(d.generationId, d._count._all);
  }
  return {
    success: rows.filter((r) => r.state === "SUCCESS").length,
    pending: rows.filter((r) => r.state === "PENDING").length,
    charged: rows.filter((r) => (r.creditsConsumed ?? 0) > 0).length,
    creditsTotal: rows.reduce((sum, r) => sum + (r.creditsConsumed ?? 0), 0),
    appliedOnce: ids.filter((id) => applied.get(id) === 1).length,
    appliedTwiceOrMore: ids.filter((id) => (applied.get(id) ?? 0) > 1).length,
    outcomes,
  };
}

/**
 * Makes the stills that stored copies still lack (left untried while the
 * media pool was busy, e.g. beside uploads) by asking the app for each, as a
 * gallery card would, waiting out its Retry-After; resolves with how many are
 * left when none are, or at the deadline. Until then a tab that opens would
 * rightly make one and every open tab would hear of the change.
 */
export async function waitForStillsSettled(db: BenchDb, { appUrl, cookie }: { appUrl: string; cookie: string }, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const untried = await db.mediaCopy.findMany({ where: { state: "DONE", stillKey: null, stillCheckedAt: null }, select: { id: true } });
    if (untried.length === 0 || Date.now() > deadline) return untried.length;
    let wait = 500;
    for (const { id } of untried) {
      const response = await fetch(`${appUrl}/api/media/${id}/still`, { method: "HEAD", headers: { Cookie: cookie } });
      if (response.status === 503) wait = Math.max(wait, Number(response.headers.get("retry-after") ?? 1) * 1000);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(0, deadline - Date.now()))));
  }
}

/** Waits (up to timeoutMs) until the app's media copy jobs are settled, so that the bench's own writes do not queue behind them. */
export async function waitForCopiesSettled(db: BenchDb, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const busy = await db.mediaCopy.count({ where: { state: { in: ["PENDING", "COPYING"] }, nextRunAt: { lte: new Date(Date.now() + timeoutMs) } } });
    if (busy === 0 || Date.now() > deadline) return busy;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
