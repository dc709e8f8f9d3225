// A database of the fault suite's own: each file migrates a fresh SQLite file
// and points DATABASE_URL at it before any of the app's modules load, so that
// killing instances, locking the file or running the cron here never touches
// the rows other suites assert on.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@libsql/client";

export function useFreshDatabase(label: string): { url: string; file: string } {
  const dir = fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), `faults-${label}-`));
  const file = path.join(dir, "faults.db");
  const url = `file:${file}`;
  const migrate = spawnSync("node_modules/.bin/prisma", ["migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`prisma migrate deploy failed:\n${migrate.stdout}\n${migrate.stderr}`);
  process.env.DATABASE_URL = url;
  return { url, file };
}

export type DatabaseLock = { release(): Promise<void> };

/**
 * Takes SQLite's write lock from another connection (`BEGIN IMMEDIATE`), as a
 * backup, a migration or a second instance would. The app may hold the lock
 * for one statement or transaction at a time, so this tries again for up to
 * `withinMs`; failing that, the app kept the lock. Release it in `finally`.
 */
export async function lockDatabase(url: string, { withinMs = 2_000 } = {}): Promise<DatabaseLock> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    // A fresh connection per try: with this driver a connection whose
    // BEGIN IMMEDIATE was refused must not run anything else (docs/RELIABILITY.md).
    const client = createClient({ url });
    try {
      await client.execute("BEGIN IMMEDIATE");
    } catch (error) {
      client.close();
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() >= deadline) {
        throw new Error(`another connection could not take the write lock within ${withinMs} ms`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        try {
          await client.execute("ROLLBACK");
        } finally {
          client.close();
        }
      },
    };
  }
}

/** True if another connection can take the write lock right now, without waiting. */
export async function canLockAtOnce(url: string): Promise<boolean> {
  const lock = await lockDatabase(url, { withinMs: 0 }).catch(() => undefined);
  await lock?.release();
  return lock !== undefined;
}
