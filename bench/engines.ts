// The database engines the bench runs on, each with a build of its own (the
// Prisma client is generated for one engine and bundled into the build).
export type BenchEngine = "sqlite" | "postgres";

export const BENCH_ENGINES: readonly BenchEngine[] = ["sqlite", "postgres"];

export const ENGINE_LABEL: Record<BenchEngine, string> = { sqlite: "SQLite (libSQL)", postgres: "PostgreSQL 15" };

export const distDirOf = (engine: BenchEngine) => (engine === "sqlite" ? ".next-bench" : ".next-bench-postgres");

/** A URL of the engine, for `prisma generate` (which reads only its scheme). */
export const sampleUrlOf = (engine: BenchEngine) => (engine === "sqlite" ? "file:./data/bench-generate.db" : "postgresql://postgres@127.0.0.1:5432/framehook_bench");

/** The benchmarks that depend on the database, run on every engine; the others run on SQLite only. */
export const DATABASE_BOUND = ["1", "2", "3", "4", "10"];
