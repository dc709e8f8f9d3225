// Playwright's web server: a fresh database for the run (a new SQLite file, or
// with TEST_DATABASE=postgres a throwaway PostgreSQL server started here and
// stopped with this process), a mail server for sign-in emails, then the
// production build and the simulator, exactly as `npm start` runs them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { env } from "../../lib/env";
import { databaseEngine } from "../../lib/database/engine";
import { ensureDatabase, startLocalPostgres } from "../../scripts/local-postgres";
import { runApp } from "../../scripts/run-app";
import { serveMailbox, startMailSink } from "../support/mail-sink";

if (databaseEngine(env.DATABASE_URL) === "postgres") {
  const url = new URL(env.DATABASE_URL);
  // One folder per port, wiped (and any server left in it stopped) at the next start.
  const dataDir = path.join(os.tmpdir(), `framehook-e2e-postgres-${url.port}`, "data");
  const server = await startLocalPostgres({ dataDir, port: Number(url.port), throwaway: true });
  await ensureDatabase(server.url("postgres"), url.pathname.slice(1));
  // runApp stops the app on these signals and exits half a second later;
  // stop() signals the server at once, which then shuts down by itself.
  for (const signal of ["SIGINT", "SIGTERM", "exit"] as const) process.on(signal, () => void server.stop());
} else {
  const file = env.DATABASE_URL.replace(/^file:/, "");
  for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${file}${suffix}`, { force: true });
}
fs.rmSync(env.MEDIA_LOCAL_DIR, { recursive: true, force: true });

// Sign-in emails go over SMTP to a real server on loopback, whose inbox the flows read (tests/e2e/accounts.spec.ts).
if (process.env.E2E_SMTP_PORT && process.env.E2E_MAILBOX_PORT) {
  await serveMailbox(await startMailSink({ port: Number(process.env.E2E_SMTP_PORT) }), Number(process.env.E2E_MAILBOX_PORT));
}

void runApp(["start", "-p", process.env.PORT ?? "3100", "-H", "127.0.0.1"]);
