// The plain-pg migration runner (npm run db:migrate on PostgreSQL) against a
// real server: several instances starting at once apply each migration once,
// Prisma's own CLI agrees with its bookkeeping, and a failed migration stops
// the next deploy as Prisma's would. Runs in the PostgreSQL pass.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { migratePostgres } from "@/lib/database/migrations/migrate-postgres";
import { readMigrations } from "@/lib/database/migrations/read-migrations";
import { postgresCliAdapter } from "../../lib/database/migrations/cli-adapters";
import { testEngine } from "../support/test-database";

const MIGRATIONS = "prisma/postgres/migrations";
const serverUrl = (database: string) => `postgresql://postgres@127.0.0.1:${process.env.FRAMEHOOK_TEST_POSTGRES_PORT}/${database}`;

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function emptyDatabase(label: string): Promise<string> {
  const name = `migrate_${label}_${process.pid}_${Date.now().toString(36)}`;
  await query(serverUrl("postgres"), `CREATE DATABASE "${name}"`);
  return serverUrl(name);
}

const bookkeeping = (url: string) =>
  query<{ migration_name: string; finished_at: Date | null; logs: string | null }>(
    url,
    `SELECT "migration_name", "finished_at", "logs" FROM "_prisma_migrations" ORDER BY "migration_name"`,
  );

describe.skipIf(testEngine() !== "postgres")("PostgreSQL migrations without the schema engine", () => {
  test("the Prisma CLI's adapter runs a migration script whole: a `;` in a comment or a string ends no statement", async () => {
    const url = await emptyDatabase("script");
    const adapter = await postgresCliAdapter(url).connect();
    try {
      await adapter.executeScript(`-- Notes: one; two\nCREATE TABLE "t" ("note" text DEFAULT 'a;b');\n`);
    } finally {
      await adapter.dispose();
    }
    expect(await query(url, `SELECT column_default AS d FROM information_schema.columns WHERE table_name = 't'`)).toEqual([{ d: "'a;b'::text" }]);
  });

  test("three instances starting at once apply each migration exactly once", async () => {
    const url = await emptyDatabase("race");
    const reports = await Promise.all([1, 2, 3].map(() => migratePostgres({ url, migrationsDir: MIGRATIONS })));
    const expected = readMigrations(MIGRATIONS).map((m) => m.name);
    expect(reports.flatMap((r) => r.applied).sort()).toEqual(expected);
    const rows = await bookkeeping(url);
    expect(rows.map((r) => r.migration_name)).toEqual(expected);
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
    const tables = (db: string) =>
      query<{ name: string }>(db, `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`);
    // The same tables as the harness's template, which one runner migrated alone.
    const names = (await tables(url)).map((t) => t.name);
    expect(names).toEqual((await tables(serverUrl("framehook_template"))).map((t) => t.name));
    expect(names).toEqual(expect.arrayContaining(["Delivery", "Generation", "RateLimit", "_prisma_migrations"]));
  });

  test("interchangeable with Prisma: `prisma migrate status` agrees, and a database Prisma deployed needs nothing more", async () => {
    const ours = await emptyDatabase("ours");
    await migratePostgres({ url: ours, migrationsDir: MIGRATIONS });
    const prisma = (args: string[], url: string) =>
      spawnSync("node_modules/.bin/prisma", args, { env: { ...process.env, DATABASE_URL: url, DATABASE_DIRECT_URL: url }, encoding: "utf8" });
    const status = prisma(["migrate", "status"], ours);
    expect(status.stdout + status.stderr).toContain("Database schema is up to date");
    expect(status.status).toBe(0);

    const theirs = await emptyDatabase("theirs");
    const deploy = prisma(["migrate", "deploy"], theirs);
    expect(deploy.status, deploy.stdout + deploy.stderr).toBe(0);
    expect(await migratePostgres({ url: theirs, migrationsDir: MIGRATIONS })).toEqual({ applied: [], alreadyApplied: readMigrations(MIGRATIONS).length });
  }, 60_000);

  test("a failing migration leaves nothing half applied, is recorded as failed, and stops the next deploy", async () => {
    const url = await emptyDatabase("broken");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-broken-migrations-"));
    fs.cpSync(MIGRATIONS, dir, { recursive: true });
    fs.mkdirSync(path.join(dir, "29990101000000_broken"));
    fs.writeFileSync(path.join(dir, "29990101000000_broken", "migration.sql"), `CREATE TABLE "Half" ("id" INT);\nSELECT no_such_function();\n`);

    await expect(migratePostgres({ url, migrationsDir: dir })).rejects.toThrow(/29990101000000_broken failed/);
    const rows = await bookkeeping(url);
    expect(rows.at(-1)).toMatchObject({ migration_name: "29990101000000_broken", finished_at: null });
    expect(rows.at(-1)!.logs).toContain("no_such_function");
    expect(await query(url, `SELECT to_regclass('"Half"') AS t`)).toEqual([{ t: null }]);
    await expect(migratePostgres({ url, migrationsDir: dir })).rejects.toThrow(/P3009/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
