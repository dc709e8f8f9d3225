// Which database engine a DATABASE_URL names. The one place that decides it,
// shared by the app (lib/db.ts, the event bus, the settings), the Prisma CLI
// (prisma.config.ts), scripts, the bench and the tests. Schemes are
// case-insensitive (RFC 3986), so POSTGRESQL:// is PostgreSQL too.
export type DatabaseEngine = "sqlite" | "postgres";

export const DATABASE_ENGINES: readonly DatabaseEngine[] = ["sqlite", "postgres"];

export function databaseEngine(databaseUrl: string): DatabaseEngine {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? "postgres" : "sqlite";
}

/** The schema folder (datasource, generator, migrations) of an engine, relative to the project root. */
export function schemaFolder(engine: DatabaseEngine): string {
  return `prisma/${engine}`;
}
