// Playwright's web server: a fresh database for the run, then the production
// build and the simulator, exactly as `npm start` runs them.
import fs from "node:fs";
import { env } from "../../lib/env";
import { runApp } from "../../scripts/run-app";

const file = env.DATABASE_URL.replace(/^file:/, "");
for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${file}${suffix}`, { force: true });

void runApp(["start", "-p", process.env.PORT ?? "3100", "-H", "127.0.0.1"]);
