// The image's migration job (`docker run IMAGE migrate`, compose's `migrate`
// service): applies the committed migrations to DATABASE_URL's PostgreSQL
// database, then exits; no app instance migrates at start in production. It
// needs the database's settings only, no app secret. The image carries it as
// one bundled file (the Dockerfile's `migrate` stage), since the Prisma CLI
// cannot be copied alone into Next's standalone output; on SQLite, which
// `npm start` migrates itself on its one machine, it says so and exits 1.
import { databaseEngine } from "../lib/database/engine";
import { migrateDatabase } from "../lib/database/migrations/migrate";
import { parseDatabaseEnv } from "../lib/database/settings";

try {
  const env = parseDatabaseEnv(process.env);
  if (databaseEngine(env.DATABASE_URL) !== "postgres") {
    throw new Error("the image's migration job applies PostgreSQL migrations; SQLite and libSQL run `npm run db:migrate` from a checkout");
  }
  await migrateDatabase({ databaseUrl: env.DATABASE_URL, directUrl: env.DATABASE_DIRECT_URL });
} catch (error) {
  console.error(`[migrate] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
