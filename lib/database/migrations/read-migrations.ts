// The committed migrations of an engine, as the runner applies them and the
// doctor compares them: one folder per migration under prisma/<engine>/migrations,
// named so that name order is the order to apply.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { schemaFolder, type DatabaseEngine } from "../engine";

export type Migration = { name: string; sql: string; checksum: string };

/** An engine's migrations folder under root (the project root by default). */
export function migrationsFolder(engine: DatabaseEngine, root = process.cwd()): string {
  return path.join(root, schemaFolder(engine), "migrations");
}

/** The migrations in folder, oldest first; checksum is Prisma's (sha256 of migration.sql). */
export function readMigrations(folder: string): Migration[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(folder, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = fs.readFileSync(path.join(folder, name, "migration.sql"));
      return { name, sql: bytes.toString("utf8"), checksum: createHash("sha256").update(bytes).digest("hex") };
    });
}
