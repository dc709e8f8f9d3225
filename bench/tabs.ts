// Simulated browser tabs, in their own process: each polls the gallery list at
// the SWR interval for a bounded time, revalidating with If-None-Match as a
// browser does with `Cache-Control: no-cache`. Writes a summary file.
import fs from "node:fs";

/** `cookie`: the viewer the tabs belong to (the gallery is per owner). */
export type TabsJob = { url: string; tabs: number; intervalMs: number; durationMs: number; cookie?: string };
export type TabsResult = { polls: number; statusCodes: Record<string, number>; errors: number; p50: number; p99: number; bytes: number };

const [jobFile, resultFile] = process.argv.slice(2);
if (!jobFile || !resultFile) throw new Error("usage: tabs.ts <job.json> <result.json>");
const job = JSON.parse(fs.readFileSync(jobFile, "utf8")) as TabsJob;

const latencies: number[] = [];
const statusCodes: Record<string, number> = {};
let errors = 0;
let bytes = 0;
const deadline = Date.now() + job.durationMs;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function tab(offsetMs: number) {
  let etag: string | null = null;
  await sleep(offsetMs);
  while (Date.now() < deadline) {
    const started = performance.now();
    try {
      const headers: Record<string, string> = { ...(job.cookie ? { Cookie: job.cookie } : {}), ...(etag ? { "If-None-Match": etag } : {}) };
      const response: Response = await fetch(job.url, { headers, signal: AbortSignal.timeout(10_000) });
      const body = await response.arrayBuffer();
      latencies.push(performance.now() - started);
      statusCodes[response.status] = (statusCodes[response.status] ?? 0) + 1;
      bytes += body.byteLength;
      etag = response.headers.get("etag") ?? etag;
    } catch {
      errors++;
    }
    // SWR waits the interval after each answer.
    await sleep(job.intervalMs);
  }
}

// Tabs opened at different moments, as real ones are.
await Promise.all(Array.from({ length: job.tabs }, (_, i) => tab((i * job.intervalMs) / job.tabs)));
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
const result: TabsResult = { polls: latencies.length, statusCodes, errors, p50: pct(50), p99: pct(99), bytes };
fs.writeFileSync(resultFile, JSON.stringify(result));
