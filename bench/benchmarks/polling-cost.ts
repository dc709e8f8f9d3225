// 3. What polling costs the gateway: 20 tasks whose callbacks are dropped,
// 50 tabs polling the gallery every 3 s for 60 s. The per-task lease should
// hold gateway status calls to one per task per POLL_STALE_MS.
import fs from "node:fs";
import path from "node:path";
import { uniqueMarker } from "../../tests/support/simulator-control";
import { benchViewerCookie, type BenchDb } from "../db";
import { runProcess } from "../processes";
import type { Section } from "../report";
import type { Stack } from "../stack";
import type { TabsJob, TabsResult } from "../tabs";
import { describeCodes } from "./callback-receiver";

const TASKS = 20;
const TABS = 50;
const INTERVAL_MS = 3000;
const DURATION_MS = 60_000;
/** The gateway finishes each task after this long; with callbacks dropped, only polling can learn it. */
const PENDING_MS = 40_000;

export async function benchPollingCost(stack: Stack, db: BenchDb): Promise<Section> {
  const marker = uniqueMarker("bench-poll");
  await stack.simulator.scenario({ match: marker, callback: { mode: "drop" }, pendingMs: PENDING_MS });
  // One visitor submits and polls in every tab, as one user with 50 tabs open (the gallery is per owner).
  const cookie = benchViewerCookie(stack.webhookSecret);
  const submitted = await Promise.all(
    Array.from({ length: TASKS }, async (_, i) => {
      const response = await fetch(`${stack.appUrl}/api/generations`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt: `polling benchmark ${i} ${marker}`, duration: 5 } }),
      });
      return { status: response.status, body: (await response.json()) as { id?: string; state?: string } };
    }),
  );
  const ids = submitted.flatMap((s) => (s.status === 201 && s.body.state === "PENDING" && s.body.id ? [s.body.id] : []));
  if (ids.length !== TASKS) throw new Error(`polling benchmark: ${ids.length}/${TASKS} submissions accepted: ${JSON.stringify(submitted.slice(0, 3))}`);

  const tabs = await runTabs(stack, { url: `${stack.appUrl}/api/generations`, tabs: TABS, intervalMs: INTERVAL_MS, durationMs: DURATION_MS, cookie });
  const requests = await stack.simulator.requests(marker);
  const statusCalls = requests.filter((r) => r.method === "GET" && r.path.startsWith("/api/generate/")).length;
  const rows = await db.generation.findMany({ where: { id: { in: ids } }, select: { state: true } });
  const completed = rows.filter((r) => r.state === "SUCCESS").length;

  const seconds = DURATION_MS / 1000;
  const bound = (TASKS * DURATION_MS) / stack.pollStaleMs;
  const withoutLease = TABS * TASKS * (DURATION_MS / INTERVAL_MS);
  const pendingBound = Math.ceil(TASKS * (PENDING_MS / stack.pollStaleMs + 1));
  return {
    title: "3. Polling cost",
    setup: `${TASKS} tasks submitted through \`POST /api/generations\` with a simulator scenario that drops their callbacks and keeps them PENDING for ${PENDING_MS / 1000} s; ${TABS} simulated tabs (one process, staggered) poll \`GET /api/generations\` every ${INTERVAL_MS / 1000} s for ${seconds} s with If-None-Match, as SWR does in a browser. POLL_STALE_MS = ${stack.pollStaleMs} ms. Gateway status calls (\`GET /api/generate/{taskId}\`) counted from the simulator's request log.`,
    figures: [
      { label: "Gateway status calls", value: statusCalls, unit: "", baseline: { label: `bound ${TASKS} × ${seconds} s / ${stack.pollStaleMs / 1000} s`, value: bound } },
      { label: "Gateway status calls vs no lease", value: statusCalls, unit: "", baseline: { label: `${TABS} tabs × ${TASKS} tasks × ${seconds / (INTERVAL_MS / 1000)} polls, no lease`, value: withoutLease } },
      { label: "Gateway status calls vs the pending time", value: statusCalls, unit: "", baseline: { label: `${TASKS} × (${PENDING_MS / 1000} s / ${stack.pollStaleMs / 1000} s + 1)`, value: pendingBound } },
      { label: "Tab polls answered", value: tabs.polls, unit: "", baseline: { label: `${TABS} tabs × ${seconds / (INTERVAL_MS / 1000)}`, value: TABS * (DURATION_MS / INTERVAL_MS) } },
      { label: "Tab poll latency p50", value: tabs.p50, unit: "ms" },
      { label: "Tab poll latency p99", value: tabs.p99, unit: "ms" },
      { label: "Tasks completed (SUCCESS)", value: completed, unit: "", baseline: { label: "submitted", value: TASKS } },
    ],
    targets: [
      { label: `gateway status calls ≤ ${TASKS} × ${seconds} s / interval`, met: statusCalls <= bound, detail: `${statusCalls} ≤ ${bound}: ${(statusCalls / withoutLease).toFixed(4)}× (1/${Math.round(withoutLease / Math.max(statusCalls, 1))}) of the ${withoutLease.toLocaleString("en-US")} calls ${TABS} tabs would make without the lease` },
      { label: "every task completes", met: completed === TASKS, detail: `${completed}/${TASKS} SUCCESS by the end of the ${seconds} s; tab polls ${describeCodes(tabs.statusCodes)}, ${tabs.errors} errors` },
    ],
    notes: [
      `Why fewer than the bound: a task is polled at most once per POLL_STALE_MS while PENDING and never after it completes (at ~${PENDING_MS / 1000} s here), so the count tracks ${TASKS} × (pending time / POLL_STALE_MS + 1) = ${pendingBound}, not the number of tabs.`,
      `Tab poll latency p99 (${Math.round(tabs.p99)} ms against p50 ${Math.round(tabs.p50)} ms): the reader that wins the leases of stale tasks asks the gateway about each before answering (bounded by the list's 1.5 s refresh budget), ${stack.engine === "sqlite" ? "and every other reader's queries wait behind those writes on the app's single database connection (see benchmark 1)" : "while the other readers share the app's pool of PostgreSQL connections"}.`,
    ],
  };
}

async function runTabs(stack: Stack, job: TabsJob): Promise<TabsResult> {
  const jobFile = path.join(stack.workDir, "tabs.json");
  const resultFile = path.join(stack.workDir, "tabs.result.json");
  fs.writeFileSync(jobFile, JSON.stringify(job));
  await runProcess(process.execPath, ["--import", "tsx", "bench/tabs.ts", jobFile, resultFile], {
    env: process.env,
    log: path.join(stack.workDir, "tabs.log"),
    timeoutMs: job.durationMs + 30_000,
  });
  return JSON.parse(fs.readFileSync(resultFile, "utf8")) as TabsResult;
}
