// The database's settings, apart from the rest of lib/env.ts: the Prisma CLI
// (prisma.config.ts: `prisma generate` in `npm run build`, migrations) needs
// these and nothing else, so a build without the app's secrets can load them.
import path from "node:path";
import { z } from "zod";
import { databaseEngine } from "./engine";

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

/** lib/env.ts validates these with every other variable. */
export const databaseFields = {
  DATABASE_URL: optional(
    z.string().regex(/^(file:|libsql:|https?:|wss?:|postgres(ql)?:\/\/)/i, "must be a file: path, a libSQL URL or a postgresql:// URL"),
  ).default("file:./data/framehook.db"),
  DATABASE_AUTH_TOKEN: optional(z.string().min(1)),
  // SQLite: how long a query waits out another connection's write lock (a backup, a migration) before failing.
  DATABASE_LOCK_WAIT_MS: optional(z.coerce.number().int().min(0).max(60_000)).default(5000),
  // PostgreSQL only: a direct (unpooled) URL for what needs a session of its
  // own: migrations (advisory lock) and LISTEN. Defaults to DATABASE_URL.
  DATABASE_DIRECT_URL: optional(z.string().refine((url) => databaseEngine(url) === "postgres", "must be a postgresql:// URL")),
  // PostgreSQL only: connections each app instance may open (see docs/operations.md "Deploy").
  DATABASE_POOL_MAX: optional(z.coerce.number().int().min(1).max(100)).default(5),
};

type DatabaseFields = z.infer<z.ZodObject<typeof databaseFields>>;

/** The values as the app uses them: a `file:` path made absolute, the direct URL defaulted. */
export function resolveDatabaseSettings<T extends DatabaseFields>(raw: T) {
  return {
    ...raw,
    DATABASE_URL: resolveDatabaseUrl(raw.DATABASE_URL),
    DATABASE_DIRECT_URL: raw.DATABASE_DIRECT_URL ?? (databaseEngine(raw.DATABASE_URL) === "postgres" ? raw.DATABASE_URL : undefined),
  };
}

const databaseSchema = z.object(databaseFields).transform(resolveDatabaseSettings);
export type DatabaseEnv = z.infer<typeof databaseSchema>;

/** The database settings alone, as prisma.config.ts reads them: no secret is asked for. */
export function parseDatabaseEnv(source: Record<string, string | undefined>): DatabaseEnv {
  return parseWith(databaseSchema, source);
}

/** A bad environment, in words meant for the operator: scripts print the message alone, without a stack. */
export class InvalidEnvironmentError extends Error {
  override name = "InvalidEnvironmentError";
}

/** Parses the environment with `schema`, or throws one error listing every bad variable. lib/env.ts uses it too. */
export function parseWith<T extends z.ZodType>(schema: T, source: Record<string, string | undefined>): z.infer<T> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "env"}: ${i.message}`);
    throw new InvalidEnvironmentError(`Invalid environment configuration:\n${lines.join("\n")}\nSee .env.example.`);
  }
  return result.data;
}

/** `file:` paths are resolved against the project root once, here: the libSQL adapter would resolve them against the cwd. */
export function resolveDatabaseUrl(databaseUrl: string, root = process.cwd()): string {
  if (!databaseUrl.startsWith("file:")) return databaseUrl;
  const file = databaseUrl.slice("file:".length);
  return `file:${path.resolve(root, file)}`;
}
