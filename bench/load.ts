// The load generator, run as its own process so that it does not share an
// event loop with the orchestrator: reads a job file, runs autocannon, and
// writes the result file. `items` gives each request its own path and body
// (and headers, if it has them), in order, across all connections.
import fs from "node:fs";
import autocannon, { type Options } from "autocannon";

export type LoadJob = {
  url: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration?: number;
  amount?: number;
  /** Requests per second across all connections (open loop: sent on schedule, whether or not earlier ones were answered, while connections are free). */
  overallRate?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** `headers`, when given, replace the job's for that request (e.g. a cookie per owner). */
  items?: { path: string; body: string; headers?: Record<string, string> }[];
};

const [jobFile, resultFile] = process.argv.slice(2);
if (!jobFile || !resultFile) throw new Error("usage: load.ts <job.json> <result.json>");
const job = JSON.parse(fs.readFileSync(jobFile, "utf8")) as LoadJob;

const options: Options = {
  url: job.url,
  connections: job.connections,
  // autocannon refuses an explicit undefined duration.
  // A run of `amount` requests ends at autocannon's next sample, not at its last response: at the
  // default 1 s, a 3.1 s run measured 4.02 s, and 2,000 callbacks could only come out at 2000/⌈s⌉
  // req/s (398, 497). Sampled every 10 ms, the run ends within 10 ms of its last response.
  ...(job.amount ? { amount: job.amount, sampleInt: 10 } : { duration: job.duration ?? 10 }),
  method: job.method ?? "GET",
  headers: job.headers ?? {},
  timeout: 10,
  ...(job.overallRate ? { overallRate: job.overallRate } : {}),
};
const items = job.items;
if (items) {
  let next = 0;
  // One shared cursor: each request takes the next item, whichever connection sends it.
  options.requests = [{ setupRequest: (request) => ({ ...request, ...items[next++ % items.length] }) }];
}

const result = await autocannon(options);
fs.writeFileSync(resultFile, JSON.stringify(result));
