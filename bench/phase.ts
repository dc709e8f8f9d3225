// One engine's part of `npm run bench`, in a process of its own (bench/run.ts
// starts it after generating that engine's Prisma client, which this process
// and the build load): builds the app, starts the stack on that engine, runs
// the benchmarks in order (each leaves the database as the next one expects)
// and writes their sections as JSON for run.ts to merge.
import fs from "node:fs";
import path from "node:path";
import { benchCallbackReceiver } from "./benchmarks/callback-receiver";
import { benchDuplicateStorm } from "./benchmarks/duplicate-storm";
import { benchGalleryList } from "./benchmarks/gallery-list";
import { benchGalleryPage } from "./benchmarks/gallery-page";
import { benchGalleryRealSize } from "./benchmarks/gallery-real-size";
import { benchLiveGallery } from "./benchmarks/live-gallery";
import { benchMediaCopy } from "./benchmarks/media-copy";
import { benchPollingCost } from "./benchmarks/polling-cost";
import { benchSubmitHolds } from "./benchmarks/submit-holds";
import { benchCompareSubmit } from "./benchmarks/compare-submit";
import { benchUploads } from "./benchmarks/uploads";
import { openDatabase, type BenchDb } from "./db";
import { DATABASE_BOUND, distDirOf, type BenchEngine } from "./engines";
import { stopAllProcesses } from "./processes";
import type { Section } from "./report";
import { buildApp, startStack, type Stack } from "./stack";

export type PhaseResult = { engine: BenchEngine; buildSeconds: number; seconds: number; sections: Section[]; failed: boolean };

const engine = process.env.BENCH_PHASE as BenchEngine;
const workDir = process.env.BENCH_WORK_DIR!;
const resultFile = process.env.BENCH_PHASE_RESULT!;
const APP_PORT = Number(process.env.BENCH_APP_PORT ?? 3300);
const SIMULATOR_PORT = Number(process.env.BENCH_SIMULATOR_PORT ?? 4310);
/** For iterating on the bench itself: reuse the last build. The committed figures always come from a full run. */
const SKIP_BUILD = process.env.BENCH_SKIP_BUILD === "1" && fs.existsSync(distDirOf(engine));
/** For iterating: e.g. BENCH_ONLY=1,3 runs those benchmarks and leaves BENCHMARKS.md alone. */
const ONLY = process.env.BENCH_ONLY?.split(",").map((n) => n.trim());

const startedAt = Date.now();
const step = (message: string) => console.log(`[bench:${engine}] ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(3)} s  ${message}`);
const numberOf = (title: string) => title.split(".")[0]!;
/** Every benchmark on SQLite; on PostgreSQL the database-bound ones. */
const selected = (title: string) => (!ONLY || ONLY.includes(numberOf(title))) && (engine === "sqlite" || DATABASE_BOUND.includes(numberOf(title)));

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void stopAllProcesses().then(() => process.exit(130)));
}

/** A benchmark that throws is reported as missed, with its error, and the others still run. */
async function attempt(title: string, run: () => Promise<Section>): Promise<Section> {
  step(title);
  try {
    return await run();
  } catch (error) {
    console.error(`[bench:${engine}] ${title} failed:`, error);
    const detail = error instanceof Error ? error.message : String(error);
    return { title, setup: "", figures: [], targets: [{ label: "benchmark ran", met: false, detail: detail.replaceAll("|", "\\|").replaceAll("\n", " ") }], notes: [] };
  }
}

let stack: Stack | undefined;
let db: BenchDb | undefined;
const result: PhaseResult = { engine, buildSeconds: 0, seconds: 0, sections: [], failed: false };
try {
  step(SKIP_BUILD ? `reusing ${distDirOf(engine)} (BENCH_SKIP_BUILD=1)` : `next build → ${distDirOf(engine)}`);
  result.buildSeconds = SKIP_BUILD ? 0 : await buildApp({ workDir, engine });
  step(`starting next start on :${APP_PORT} and the simulator on :${SIMULATOR_PORT} on ${engine} (logs in ${workDir})`);
  const running = (stack = await startStack({ workDir, engine, appPort: APP_PORT, simulatorPort: SIMULATOR_PORT }));
  const database = (db = await openDatabase(running.databaseUrl));

  const benchmarks: [string, () => Promise<Section>][] = [
    ["1. Callback receiver", () => benchCallbackReceiver(running, database)],
    ["2. Duplicate storm", () => benchDuplicateStorm(running, database)],
    ["3. Polling cost", () => benchPollingCost(running, database)],
    ["4. Gallery list endpoint", () => benchGalleryList(running, database)],
    ["5. Gallery page", () => benchGalleryPage(running)],
    ["6. Media copy", () => benchMediaCopy(running, database)],
    ["7. Live gallery", () => benchLiveGallery(running, database)],
    ["8. Gallery at real size", () => benchGalleryRealSize(running, database)],
    ["9. Uploads", () => benchUploads(running)],
    ["10. Submit with credit holds", () => benchSubmitHolds(running, database)],
    ["11. Compare submit", () => benchCompareSubmit(running, database)],
  ];
  for (const [title, run] of benchmarks) if (selected(title)) result.sections.push(await attempt(title, run));
  result.failed = result.sections.some((s) => s.targets.some((t) => t.label === "benchmark ran"));
} catch (error) {
  result.failed = true;
  console.error(`[bench:${engine}] failed:`, error);
} finally {
  await db?.$disconnect();
  await stack?.stop();
  await stopAllProcesses();
}
result.seconds = (Date.now() - startedAt) / 1000;
fs.mkdirSync(path.dirname(resultFile), { recursive: true });
fs.writeFileSync(resultFile, JSON.stringify(result, null, 2));
process.exit(result.failed ? 1 : 0);
