// Every caller (the Prisma client, the event bus, the settings, the CLI, the
// bench) asks databaseEngine(); these are the URLs it must agree on.
import { expect, test } from "vitest";
import { databaseEngine } from "@/lib/database/engine";
import { isRetryableTransaction, isUniqueViolation } from "@/lib/database/errors";
import { parseDatabaseEnv } from "@/lib/database/settings";

test.each([
  ["file:./data/framehook.db", "sqlite"],
  ["FILE:./data/framehook.db", "sqlite"],
  ["libsql://db.example.turso.io", "sqlite"],
  ["https://db.example.turso.io", "sqlite"],
  ["wss://db.example.turso.io", "sqlite"],
  ["postgres://u:p@db/app", "postgres"],
  ["postgresql://u:p@db/app", "postgres"],
  ["POSTGRESQL://u:p@db/app", "postgres"],
  ["PostgreS://u:p@db/app", "postgres"],
] as const)("%s is served by the %s engine, and the settings agree", (url, engine) => {
  expect(databaseEngine(url)).toBe(engine);
  // A PostgreSQL URL is its own direct URL (migrations, LISTEN); other engines have none.
  expect(parseDatabaseEnv({ DATABASE_URL: url }).DATABASE_DIRECT_URL).toBe(engine === "postgres" ? url : undefined);
});

test.each([
  ["postgresql://u:p@direct/app", true],
  ["POSTGRES://u:p@direct/app", true],
  ["file:./data/x.db", false],
  ["libsql://db.example.turso.io", false],
])("DATABASE_DIRECT_URL=%s is accepted: %s", (url, accepted) => {
  const parse = () => parseDatabaseEnv({ DATABASE_URL: "postgresql://u:p@db/app", DATABASE_DIRECT_URL: url });
  if (accepted) expect(parse().DATABASE_DIRECT_URL).toBe(url);
  else expect(parse).toThrow(/DATABASE_DIRECT_URL: must be a postgresql:\/\/ URL/);
});

test.each([
  [{ code: "P2002" }, true, false],
  [{ code: "P2034" }, false, true],
  [{ code: "P2028" }, false, true],
  [{ code: "P1008" }, false, true],
  [new Error("SQLITE_BUSY: database is locked"), false, true],
  [new Error("Spending limit reached"), false, false],
  [null, false, false],
  ["P2002", false, false],
])("%j: unique violation %s, retryable %s", (error, unique, retryable) => {
  expect(isUniqueViolation(error)).toBe(unique);
  expect(isRetryableTransaction(error)).toBe(retryable);
});
