// Applies the committed PostgreSQL migrations with plain `pg`, the way
// `prisma migrate deploy` does, so that either can follow the other: the same
// `_prisma_migrations` table (checksum = sha256 of migration.sql) and the same
// session advisory lock, so that instances starting at once apply each
// migration once. Needs no schema engine, hence nothing to download.
// Prisma 6.19's CLI cannot deploy to PostgreSQL through its WebAssembly
// engine without cli-adapters.ts; on Prisma 7 this may be deleted.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { readMigrations, type Migration } from "./read-migrations";

/** The key Prisma Migrate holds with pg_advisory_lock while it migrates. */
export const PRISMA_MIGRATE_LOCK = 72707369;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export type MigrationReport = { applied: string[]; alreadyApplied: number };

type AppliedRow = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

export async function migratePostgres({
  url,
  migrationsDir,
  log = () => {},
}: {
  /** A direct URL: a session advisory lock does not survive a transaction-mode pooler. */
  url: string;
  migrationsDir: string;
  log?: (line: string) => void;
}): Promise<MigrationReport> {
  const migrations = readMigrations(migrationsDir);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<AppliedRow>(
        `SELECT "migration_name", "checksum", "finished_at", "rolled_back_at" FROM "_prisma_migrations" ORDER BY "started_at"`,
      );
      const live = rows.filter((row) => row.rolled_back_at === null);
      const failed = live.find((row) => row.finished_at === null);
      if (failed) {
        throw new Error(
          `Migration ${failed.migration_name} failed earlier and was not resolved (Prisma's P3009). ` +
            "Fix the database, then mark it with `npx prisma migrate resolve --applied|--rolled-back <name>`.",
        );
      }
      const done = new Map(live.map((row) => [row.migration_name, row.checksum]));
      const applied: string[] = [];
      for (const migration of migrations) {
        const checksum = done.get(migration.name);
        if (checksum !== undefined) {
          if (checksum !== migration.checksum) log(`warning: ${migration.name} was edited after it was applied`);
          continue;
        }
        await applyMigration(client, migration);
        applied.push(migration.name);
        log(`applied ${migration.name}`);
      }
      return { applied, alreadyApplied: migrations.length - applied.length };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK]);
    }
  } finally {
    await client.end();
  }
}

async function applyMigration(client: pg.Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query(`INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "started_at") VALUES ($1, $2, $3, now())`, [
    id,
    migration.checksum,
    migration.name,
  ]);
  try {
    // One simple-protocol query: the whole script runs as one implicit
    // transaction, so a failing migration leaves nothing half applied.
    await client.query(migration.sql);
  } catch (error) {
    // Recorded as Prisma records it: unfinished, with the error in logs.
    await client.query(`UPDATE "_prisma_migrations" SET "logs" = $2 WHERE "id" = $1`, [id, String(error)]);
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
  await client.query(`UPDATE "_prisma_migrations" SET "finished_at" = now(), "applied_steps_count" = 1 WHERE "id" = $1`, [id]);
}
