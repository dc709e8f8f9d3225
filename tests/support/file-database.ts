// Vitest's setup file: each test file gets a database and a media directory of
// its own (copies of global setup's migrated template), set in the environment
// before the file imports any of the app's modules or starts an app. Files can
// then run side by side: the cron, which several of them run, sweeps every row
// of the database it is pointed at, and a test counts the rows it expects.
import fs from "node:fs";
import path from "node:path";
import { freshTestDatabase } from "./test-database";

const dir = process.env.FRAMEHOOK_TEST_DIR;
if (dir) {
  process.env.DATABASE_URL = freshTestDatabase("file");
  process.env.MEDIA_LOCAL_DIR = fs.mkdtempSync(path.join(dir, "media-"));
}
