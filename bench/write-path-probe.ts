// A probe of what limits the callback receiver, run in the bench process on the
// bench database while the app is idle: the conditional update the single
// writer uses (updateManyAndReturn: BEGIN/UPDATE … RETURNING/COMMIT) against
// the same condition as one UPDATE … RETURNING (update with a filtered unique
// where), and whether a per-connection pragma (busy_timeout) survives a
// transaction on Prisma's stock libSQL client.
import { Prisma } from "../lib/generated/prisma/client";
import { seedPending, type BenchDb } from "./db";

const ROWS = 200;

export type WritePathProbe = { appWriteMs: number; updateMs: number; busyTimeoutBefore: number; busyTimeoutAfter: number };

export async function probeWritePath(db: BenchDb, secret: string, { sqlite }: { sqlite: boolean }): Promise<WritePathProbe> {
  const tasks = await seedPending(db, { prefix: "probe", count: 2 * ROWS, secret });
  const done = { state: "SUCCESS" as const, resultUrls: "[]", creditsConsumed: 0.704 };

  // busy_timeout is SQLite's; on PostgreSQL the figures read NaN and are not reported.
  if (sqlite) await db.$executeRawUnsafe("PRAGMA busy_timeout = 5000");
  const busyTimeoutBefore = sqlite ? await busyTimeout(db) : NaN;
  let started = performance.now();
  for (const t of tasks.slice(0, ROWS)) {
    await db.generation.updateManyAndReturn({
      where: { id: t.id, taskId: t.taskId, state: "PENDING" },
      data: { ...done, completedAt: new Date() },
      select: { id: true, state: true, updatedAt: true, ownerId: true },
    });
  }
  const appWriteMs = (performance.now() - started) / ROWS;
  const busyTimeoutAfter = sqlite ? await busyTimeout(db) : NaN;

  started = performance.now();
  for (const t of tasks.slice(ROWS)) {
    try {
      await db.generation.update({ where: { id: t.id, taskId: t.taskId, state: "PENDING" }, data: { ...done, completedAt: new Date() }, select: { id: true } });
    } catch (error) {
      // P2025: nothing matched, the same "no transition" as no row returned.
      if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025")) throw error;
    }
  }
  const updateMs = (performance.now() - started) / ROWS;
  return { appWriteMs, updateMs, busyTimeoutBefore, busyTimeoutAfter };
}

async function busyTimeout(db: BenchDb): Promise<number> {
  const [row] = await db.$queryRawUnsafe<{ timeout: number | bigint }[]>("PRAGMA busy_timeout");
  return Number(row?.timeout ?? NaN);
}
