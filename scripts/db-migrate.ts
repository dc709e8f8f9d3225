// `npm run db:migrate`: applies the committed migrations to DATABASE_URL's database.
import "./load-env-files";
import { env } from "../lib/env";
import { migrateDatabase } from "../lib/database/migrations/migrate";

migrateDatabase({ databaseUrl: env.DATABASE_URL, directUrl: env.DATABASE_DIRECT_URL }).catch((error) => {
  console.error(`[db:migrate] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
