// `npm run bench`: builds the app, starts it with the simulator on loopback,
// runs the benchmarks (issues 8, 16 and 18) in order (each leaves the database as
// the next one expects), writes BENCHMARKS.md and prints a summary.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchCallbackReceiver } from "./benchmarks/callback-receiver";
import { benchDuplicateStorm } from "./benchmarks/duplicate-storm";
import { benchGalleryList } from "./benchmarks/gallery-list";
import { benchGalleryPage } from "./benchmarks/gallery-page";
import { benchMediaCopy } from "./benchmarks/media-copy";
import { benchLiveGallery } from "./benchmarks/live-gallery";
import { benchPollingCost } from "./benchmarks/polling-cost";
import { openDatabase, type BenchDb } from "./db";
import { stopAllProcesses } from "./processes";
import { printSummary, writeReport, type Section } from "./report";
import { buildApp, DIST_DIR, startStack, type Stack } from "./stack";

const APP_PORT = Number(process.env.BENCH_APP_PORT ?? 3300);
const SIMULATOR_PORT = Number(process.env.BENCH_SIMULATOR_PORT ?? 4310);
/** For iterating on the bench itself: reuse the last build. The committed figures always come from a full run. */
const SKIP_BUILD = process.env.BENCH_SKIP_BUILD === "1" && fs.existsSync(DIST_DIR);
/** For iterating: e.g. BENCH_ONLY=1,3 runs those benchmarks and leaves BENCHMARKS.md alone. */
const ONLY = process.env.BENCH_ONLY?.split(",").map((n) => n.trim());
const LOAD_GENERATOR =
  "autocannon 9 (HTTP/1.1 keep-alive, HDR histograms, per-request bodies through `setupRequest`), run through its API in a child process (bench/load.ts): pure Node, so `npm install` is enough, where wrk would need a C toolchain or a system package.";

const startedAt = new Date();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-bench-"));
let stack: Stack | undefined;
let db: BenchDb | undefined;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n[bench] ${signal}: stopping the app, the simulator and the load generator`);
    void stopAllProcesses().then(() => process.exit(130));
  });
}

const step = (message: string) => console.log(`[bench] ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(3)} s  ${message}`);

const selected = (title: string) => !ONLY || ONLY.includes(title.split(".")[0]!);

/** A benchmark that throws is reported as missed, with its error, and the others still run. */
async function attempt(title: string, run: () => Promise<Section>): Promise<Section> {
  step(title);
  try {
    return await run();
  } catch (error) {
    console.error(`[bench] ${title} failed:`, error);
    const detail = error instanceof Error ? error.message : String(error);
    return { title, setup: "", figures: [], targets: [{ label: "benchmark ran", met: false, detail: detail.replaceAll("|", "\\|").replaceAll("\n", " ") }], notes: [] };
  }
}

let failed = false;
try {
  step(SKIP_BUILD ? `reusing ${DIST_DIR} (BENCH_SKIP_BUILD=1)` : `next build → ${DIST_DIR}`);
  const buildSeconds = SKIP_BUILD ? 0 : await buildApp({ workDir });
  step(`starting next start on :${APP_PORT} and the simulator on :${SIMULATOR_PORT} (logs in ${workDir})`);
  const running = (stack = await startStack({ workDir, appPort: APP_PORT, simulatorPort: SIMULATOR_PORT }));
  const database = (db = await openDatabase(running.databaseUrl));

  const benchmarks: [string, () => Promise<Section>][] = [
    ["1. Callback receiver", () => benchCallbackReceiver(running, database)],
    ["2. Duplicate storm", () => benchDuplicateStorm(running, database)],
    ["3. Polling cost", () => benchPollingCost(running, database)],
    ["4. Gallery list endpoint", () => benchGalleryList(running, database)],
    ["5. Gallery page", () => benchGalleryPage(running)],
    ["6. Media copy", () => benchMediaCopy(running, database)],
    ["7. Live gallery", () => benchLiveGallery(running)],
  ];
  const sections: Section[] = [];
  for (const [title, run] of benchmarks) if (selected(title)) sections.push(await attempt(title, run));

  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  fs.mkdirSync("bench/results", { recursive: true });
  fs.writeFileSync("bench/results/latest.json", JSON.stringify({ startedAt, seconds, sections }, null, 2));
  printSummary(sections);
  if (!ONLY) {
    writeReport("BENCHMARKS.md", sections, { command: "npm run bench", startedAt, seconds, buildSeconds, loadGenerator: LOAD_GENERATOR });
    step("wrote BENCHMARKS.md (raw figures in bench/results/latest.json)");
  }
  failed = sections.some((s) => s.targets.some((t) => t.label === "benchmark ran"));
} catch (error) {
  failed = true;
  console.error("[bench] failed:", error);
} finally {
  await db?.$disconnect();
  await stack?.stop();
  await stopAllProcesses();
  // The logs of the last run (build, app, simulator, load) stay in bench/results/logs (git-ignored).
  const logs = "bench/results/logs";
  fs.rmSync(logs, { recursive: true, force: true });
  fs.mkdirSync(logs, { recursive: true });
  for (const file of fs.readdirSync(workDir).filter((f) => f.endsWith(".log"))) fs.copyFileSync(path.join(workDir, file), path.join(logs, file));
  if (failed) console.error(`[bench] logs in ${logs}; database and load files kept in ${workDir}`);
  else fs.rmSync(workDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

