// Runs the project's own Prisma CLI (node_modules/.bin/prisma) against one
// database: prisma.config.ts picks the engine's schema folder from DATABASE_URL.
import { spawnSync, type SpawnSyncReturns, type StdioOptions } from "node:child_process";
import path from "node:path";

export function runPrisma(
  args: string[],
  { databaseUrl, env = {}, stdio = "pipe" }: { databaseUrl: string; env?: Record<string, string>; stdio?: StdioOptions },
): SpawnSyncReturns<string> {
  return spawnSync(path.join(process.cwd(), "node_modules", ".bin", "prisma"), args, {
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
    stdio,
    encoding: "utf8",
  });
}
