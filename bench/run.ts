// `npm run bench`: the benchmarks (issues 8, 13, 16, 18 and 38) on each database
// engine in turn, SQLite then PostgreSQL, each in a process of its own
// (bench/phase.ts) after generating that engine's Prisma client; then one
// BENCHMARKS.md with the engines side by side, and a summary. The generated
// client is put back to SQLite, the default, whatever happens. One benchmark
// alone, on one engine: `BENCH_ONLY=10 BENCH_ENGINES=sqlite npm run bench`
// (BENCHMARKS.md is left alone; the figures are printed and in bench/results/latest.json).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensurePrismaClientFor } from "../lib/database/migrations/prisma-client";
import { BENCH_ENGINES, DATABASE_BOUND, ENGINE_LABEL, sampleUrlOf, type BenchEngine } from "./engines";
import type { PhaseResult } from "./phase";
import { runProcess, stopAllProcesses } from "./processes";
import { printSummary, updateReport, writeReport } from "./report";

/**
 * For iterating on the bench: e.g. BENCH_ENGINES=postgres runs one engine and leaves BENCHMARKS.md alone (as BENCH_ONLY does,
 * unless BENCH_UPDATE=1 asks to replace the rows and sections of the benchmarks it ran on every engine).
 */
const ENGINES = (process.env.BENCH_ENGINES?.split(",").map((e) => e.trim()) ?? BENCH_ENGINES).filter((e): e is BenchEngine => BENCH_ENGINES.includes(e as BenchEngine));
const ONLY = process.env.BENCH_ONLY?.split(",").map((n) => n.trim());
const PARTIAL = !!ONLY || ENGINES.length < BENCH_ENGINES.length;
/** An engine with nothing to run (BENCH_ONLY names only benchmarks that run on SQLite alone) is not built. */
const PHASES = ENGINES.filter((engine) => engine === "sqlite" || !ONLY || ONLY.some((n) => DATABASE_BOUND.includes(n)));
/** An engine's whole phase: SQLite's runs every benchmark (about 25 min on a quiet 2-core machine since benchmark 10). */
const PHASE_TIMEOUT_MS = 45 * 60_000;
const LOAD_GENERATOR =
  "autocannon 9 (HTTP/1.1 keep-alive, HDR histograms, per-request bodies through `setupRequest`), run through its API in a child process (bench/load.ts): pure Node, so `npm install` is enough, where wrk would need a C toolchain or a system package.";

const startedAt = new Date();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-bench-"));
const step = (message: string) => console.log(`[bench] ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(3)} s  ${message}`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopping = true;
    console.error(`\n[bench] ${signal}: stopping the phase (app, simulator, database, load generator)`);
    void stopAllProcesses().then(() => {
      restoreClient();
      process.exit(130);
    });
  });
}

/** The SQLite client is what `npm install`, the tests and `npm run dev` expect to find. */
function restoreClient() {
  try {
    ensurePrismaClientFor(sampleUrlOf("sqlite"));
  } catch (error) {
    console.error("[bench] could not regenerate the SQLite Prisma client: run `npx prisma generate`", error);
  }
}

const results: PhaseResult[] = [];
let failed = false;
try {
  for (const engine of PHASES) {
    if (stopping) break;
    step(`${ENGINE_LABEL[engine]}: Prisma client, build and benchmarks (bench/phase.ts)`);
    ensurePrismaClientFor(sampleUrlOf(engine));
    const resultFile = path.join(workDir, `phase-${engine}.json`);
    const log = path.join(workDir, `phase-${engine}.log`);
    // The phase's own progress lines are echoed from its log as it runs.
    const tail = followLog(log);
    try {
      await runProcess(process.execPath, ["--import", "tsx", "bench/phase.ts"], {
        env: { ...process.env, BENCH_PHASE: engine, BENCH_WORK_DIR: workDir, BENCH_PHASE_RESULT: resultFile },
        log,
        timeoutMs: PHASE_TIMEOUT_MS,
      });
    } catch (error) {
      failed = true;
      console.error(`[bench] ${engine}:`, error instanceof Error ? error.message : error);
    } finally {
      tail();
    }
    if (fs.existsSync(resultFile)) results.push(JSON.parse(fs.readFileSync(resultFile, "utf8")) as PhaseResult);
  }

  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const runs = results.map((r) => ({ engine: r.engine, label: ENGINE_LABEL[r.engine], sections: r.sections }));
  fs.mkdirSync("bench/results", { recursive: true });
  fs.writeFileSync("bench/results/latest.json", JSON.stringify({ startedAt, seconds, runs: results }, null, 2));
  printSummary(runs);
  const buildSeconds = results.reduce((sum, r) => sum + r.buildSeconds, 0);
  const info = { command: "npm run bench", startedAt, seconds, buildSeconds, loadGenerator: LOAD_GENERATOR };
  if (!PARTIAL && results.length === ENGINES.length) {
    writeReport("BENCHMARKS.md", runs, info);
    step("wrote BENCHMARKS.md (raw figures in bench/results/latest.json)");
  } else if (process.env.BENCH_UPDATE === "1" && ENGINES.length === BENCH_ENGINES.length && results.length === PHASES.length && !failed) {
    updateReport("BENCHMARKS.md", runs, info);
    step("updated the re-run benchmarks' rows and sections of BENCHMARKS.md");
  }
  failed ||= results.some((r) => r.failed);
} catch (error) {
  failed = true;
  console.error("[bench] failed:", error);
} finally {
  await stopAllProcesses();
  restoreClient();
  // The logs of the last run (builds, apps, simulators, load) stay in bench/results/logs (git-ignored).
  const logs = "bench/results/logs";
  fs.rmSync(logs, { recursive: true, force: true });
  fs.mkdirSync(logs, { recursive: true });
  for (const file of fs.readdirSync(workDir).filter((f) => f.endsWith(".log"))) fs.copyFileSync(path.join(workDir, file), path.join(logs, file));
  if (failed) console.error(`[bench] logs in ${logs}; database and load files kept in ${workDir}`);
  else fs.rmSync(workDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** Prints the lines of a growing log file that start with "[bench"; returns the stop. */
function followLog(file: string): () => void {
  let offset = 0;
  const flush = () => {
    if (!fs.existsSync(file)) return;
    const text = fs.readFileSync(file, "utf8");
    const fresh = text.slice(offset);
    const end = fresh.lastIndexOf("\n") + 1;
    offset += end;
    for (const line of fresh.slice(0, end).split("\n")) if (line.startsWith("[bench")) console.log(line);
  };
  const timer = setInterval(flush, 1000);
  return () => {
    clearInterval(timer);
    flush();
  };
}
