// A probe of what a callback's write costs, run in the bench process on the
// bench database while the app is idle: the app's outcome write
// (lib/database/outcome-write*.ts: one statement on PostgreSQL, one
// transaction on SQLite) one at a time and 64 at once, against the two
// Prisma writes it replaced (updateManyAndReturn, BEGIN/UPDATE … RETURNING/COMMIT,
// then delivery.create), one at a time.
import pg from "pg";
import { databaseEngine } from "../lib/database/engine";
import { createPostgresOutcomeWriter } from "../lib/database/outcome-write-postgres";
import { createSqliteOutcomeWriter } from "../lib/database/outcome-write-sqlite";
import type { OutcomeWrite, OutcomeWriter } from "../lib/database/outcome-write";
import { SqliteConnection } from "../lib/database/sqlite-connection";
import { seedPending, type BenchDb, type SeededTask } from "./db";

const ROWS = 200;
const CONCURRENT = 64;

export type WritePathProbe = { outcomeWriteMs: number; outcomeWriteConcurrentMs: number; prismaWritesMs: number };

export async function probeWritePath(db: BenchDb, { url, secret }: { url: string; secret: string }): Promise<WritePathProbe> {
  const tasks = await seedPending(db, { prefix: "probe", count: 3 * ROWS, secret });
  const { writeOutcome, close } = openWriter(url);
  try {
    let started = performance.now();
    for (const t of tasks.slice(0, ROWS)) await writeOutcome(outcomeOf(t));
    const outcomeWriteMs = (performance.now() - started) / ROWS;

    started = performance.now();
    const concurrent = tasks.slice(ROWS, 2 * ROWS);
    await Promise.all(Array.from({ length: CONCURRENT }, async (_, lane) => {
      for (let i = lane; i < concurrent.length; i += CONCURRENT) await writeOutcome(outcomeOf(concurrent[i]!));
    }));
    const outcomeWriteConcurrentMs = (performance.now() - started) / ROWS;

    started = performance.now();
    for (const t of tasks.slice(2 * ROWS)) {
      await db.generation.updateManyAndReturn({
        where: { id: t.id, taskId: t.taskId, state: "PENDING" },
        data: { state: "SUCCESS", resultUrls: "[]", creditsConsumed: 0.704, completedAt: new Date(), lastHeardAt: new Date() },
        select: { id: true, state: true, updatedAt: true, ownerId: true },
      });
      await db.delivery.create({ data: { generationId: t.id, taskId: t.taskId, source: "CALLBACK", outcome: "APPLIED", reportedState: "SUCCESS" }, select: { id: true } });
    }
    const prismaWritesMs = (performance.now() - started) / ROWS;
    return { outcomeWriteMs, outcomeWriteConcurrentMs, prismaWritesMs };
  } finally {
    await close();
  }
}

function openWriter(url: string): { writeOutcome: OutcomeWriter; close(): Promise<void> } {
  if (databaseEngine(url) === "postgres") {
    const pool = new pg.Pool({ connectionString: url, max: 5 });
    return { writeOutcome: createPostgresOutcomeWriter(pool), close: () => pool.end() };
  }
  const connection = new SqliteConnection({ url });
  return { writeOutcome: createSqliteOutcomeWriter({ connection: () => connection, retry: (operation) => operation() }), close: async () => connection.close() };
}

const outcomeOf = (t: SeededTask): OutcomeWrite => ({
  generationId: t.id,
  taskId: t.taskId,
  change: { kind: "terminal", state: "SUCCESS", resultUrls: "[]", creditsConsumed: 0.704, errorCode: null, errorMessage: null, gatewayMetadata: null, resultUrlsDropped: 0 },
  replacesFailureCode: "task_not_found",
  now: new Date(),
  delivery: { source: "CALLBACK", reportedState: "SUCCESS", ifMatched: "APPLIED", ifNotMatched: { duplicateOf: "SUCCESS", onlyIfHeld: true } },
});
