// Runs one autocannon job in its own process (bench/load.ts) and reduces the
// result to the figures the report uses.
import type { Result } from "autocannon";
import fs from "node:fs";
import path from "node:path";
import type { LoadJob } from "./load";
import { runProcess } from "./processes";

export type LoadFigures = {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  bytesPerResponse: number;
  statusCodes: Record<string, number>;
};

let jobs = 0;

export async function runLoad(job: LoadJob, { workDir, timeoutMs }: { workDir: string; timeoutMs: number }): Promise<LoadFigures> {
  const id = ++jobs;
  const jobFile = path.join(workDir, `load-${id}.json`);
  const resultFile = path.join(workDir, `load-${id}.result.json`);
  fs.writeFileSync(jobFile, JSON.stringify(job));
  await runProcess(process.execPath, ["--import", "tsx", "bench/load.ts", jobFile, resultFile], {
    env: process.env,
    log: path.join(workDir, "load.log"),
    timeoutMs,
  });
  const result = JSON.parse(fs.readFileSync(resultFile, "utf8")) as Result;
  const requests = result.requests.total;
  return {
    requests,
    seconds: result.duration,
    rps: requests / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytesPerResponse: requests > 0 ? result.throughput.total / requests : 0,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  };
}
