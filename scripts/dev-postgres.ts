// `npm run dev:postgres`: `npm run dev` on a local PostgreSQL, with zero
// configuration: a server from the system's binaries over data/postgres
// (created on first use, 127.0.0.1 only), database "framehook", the Prisma
// client generated for PostgreSQL, migrations applied. The server stops with
// the app; the data stays. DEV_POSTGRES_PORT moves it (default 54329).
import fs from "node:fs";
import path from "node:path";
import { ensureDatabase, findPostgresBin, POSTGRES_MISSING, startLocalPostgres } from "./local-postgres";

if (!findPostgresBin()) {
  console.error(`[dev:postgres] ${POSTGRES_MISSING}`);
  process.exit(1);
}

const dataDir = path.resolve("data/postgres");
const port = Number(process.env.DEV_POSTGRES_PORT ?? 54329);
fs.mkdirSync("data", { recursive: true });
const log = fs.createWriteStream(path.resolve("data/postgres.log"), { flags: "a" });
console.log(`[dev:postgres] PostgreSQL on 127.0.0.1:${port}, data in data/postgres, log in data/postgres.log`);
const server = await startLocalPostgres({ dataDir, port, log: (line) => log.write(line) });
await ensureDatabase(server.url("postgres"), "framehook");
for (const signal of ["SIGINT", "SIGTERM", "exit"] as const) process.on(signal, () => void server.stop());

// lib/env.ts reads the environment when first imported: set it first.
process.env.DATABASE_URL = server.url("framehook");
process.env.DATABASE_DIRECT_URL = server.url("framehook");
console.log(`[dev:postgres] DATABASE_URL=${process.env.DATABASE_URL}`);
const { runApp } = await import("./run-app");
await runApp(["dev", ...process.argv.slice(2)]);
