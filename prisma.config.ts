// Prisma CLI configuration: the WebAssembly schema engine over a driver
// adapter, so that migrations need no native engine download. DATABASE_URL's
// scheme picks the engine: its schema folder (datasource, generator,
// migrations) under prisma/, and its adapter (with the workarounds for Prisma
// 6.19.3's CLI in lib/database/migrations/cli-adapters.ts).
import "./scripts/load-env-files";
import { defineConfig } from "prisma/config";
import { parseDatabaseEnv } from "./lib/database/settings";
import { ensureDatabaseDirectory } from "./lib/database/sqlite-file";
import { databaseEngine, schemaFolder } from "./lib/database/engine";
import { placeSharedModels } from "./lib/database/migrations/shared-models";
import { postgresCliAdapter, sqliteCliAdapter } from "./lib/database/migrations/cli-adapters";

// The database's settings only (not lib/env.ts): `npm run build` runs
// `prisma generate`, and a build needs no secrets, with NODE_ENV=production too.
const env = parseDatabaseEnv(process.env);
const engine = databaseEngine(env.DATABASE_URL);
const folder = schemaFolder(engine);
placeSharedModels(folder);

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: folder,
  migrations: { path: `${folder}/migrations` },
  async adapter() {
    if (engine === "postgres") return postgresCliAdapter(env.DATABASE_DIRECT_URL ?? env.DATABASE_URL);
    ensureDatabaseDirectory(env.DATABASE_URL);
    return sqliteCliAdapter(env.DATABASE_URL, env.DATABASE_AUTH_TOKEN);
  },
});
