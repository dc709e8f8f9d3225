// SQLite creates the database file but not its directory.
import fs from "node:fs";
import path from "node:path";

export function ensureDatabaseDirectory(databaseUrl: string): void {
  if (!databaseUrl.startsWith("file:")) return;
  fs.mkdirSync(path.dirname(databaseUrl.slice("file:".length)), { recursive: true });
}
