// The system Chromium as a measuring instrument: launched with the project's
// flags and a network log of its own (bench/net-log.ts counts the bytes from
// it), throttled through CDP, its renderers' memory read from /proc.
import fs from "node:fs";
import { chromium, type Browser, type CDPSession, type Page } from "@playwright/test";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
/** Chromium's own background requests (safe browsing, updates) fail at once instead of adding bytes to the log. */
const LOOPBACK_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1";

export type Network = { label: string; downloadBps?: number; uploadBps?: number; latencyMs?: number };

export const UNTHROTTLED: Network = { label: "unthrottled" };
export const BROADBAND_20M: Network = { label: "20 Mbit/s", downloadBps: 20_000_000, uploadBps: 5_000_000, latencyMs: 40 };

/** A fresh browser (cold cache, no other tab) writing its network log to `netLog`. */
export function launchWithNetLog(netLog: string): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, LOOPBACK_ONLY, `--log-net-log=${netLog}`] });
}

/**
 * DevTools network emulation on a page's session, before it navigates. It is
 * applied in the network service to every request of the page, media range
 * requests included, so it shapes what the log counts.
 */
export async function emulateNetwork(cdp: CDPSession, network: Network): Promise<void> {
  await cdp.send("Network.enable");
  if (network.downloadBps === undefined) return;
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: network.latencyMs ?? 0,
    downloadThroughput: network.downloadBps / 8,
    uploadThroughput: (network.uploadBps ?? network.downloadBps) / 8,
  });
}

/**
 * Proportional set size (KiB) of the renderer process(es) drawing `page`:
 * its memory with its share of what it shares with other processes, from
 * /proc/<pid>/smaps_rollup. Which process draws which frame is in the first
 * event of a DevTools timeline trace (the browser's other renderers, a spare
 * and its own UI's, are left out).
 */
export async function rendererPssKiB(browser: Browser, page: Page): Promise<{ kib: number; processes: number }> {
  await browser.startTracing(page, { categories: ["disabled-by-default-devtools.timeline"] });
  const trace = JSON.parse((await browser.stopTracing()).toString("utf8")) as { traceEvents: TraceEvent[] };
  const pids = new Set(trace.traceEvents.filter((e) => e.name === "TracingStartedInBrowser").flatMap((e) => e.args.data?.frames?.map((f) => f.processId) ?? []));
  if (pids.size === 0) throw new Error("the trace named no renderer process for the page");
  const kib = [...pids].reduce((sum, pid) => sum + Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? NaN), 0);
  return { kib, processes: pids.size };
}

type TraceEvent = { name: string; args: { data?: { frames?: { processId: number }[] } } };
