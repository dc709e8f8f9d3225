// A database of the fault suite's own: each file migrates a fresh SQLite file
// and points DATABASE_URL at it before any of the app's modules load, so that
// killing instances, locking the file or running the cron here never touches
// the rows other suites assert on.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

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
