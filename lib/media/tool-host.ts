// Background runs of the media tools (a still's ffprobe and ffmpeg) are
// started by a small Node process of their own, the tool host, not by the
// app. Starting a process forks the one that asks, on the thread that asks,
// and a fork costs in proportion to that process's memory: measured on Node
// 20 here, execFile blocks its thread 3.7 ms at 42 MB of RSS and 19 ms at
// 547 MB (an app with 50 open tabs is near 500 MB). Two such blocks per still
// were a tail of the live push (BENCHMARKS.md, section 7). The host stays
// near 40 MB, so its forks are cheap and happen on its own thread; the app
// sends it one message per run and gets one back.
//
// The host lowers its own priority once (nice 10), so everything it starts
// runs at background priority (toolchain.ts's ToolPriority). It is started
// on first use, exits when the app does (its IPC channel closes) and kills
// what it was running then; if it dies, its pending runs fail as "busy"
// (transient: a still is tried again later) and the next run starts another.
import "server-only";
import { spawn, type ChildProcess } from "node:child_process";
import { mediaBusy } from "./media-pool";

/** A finished run, as execFile's callback saw it. */
export type ToolRun = { stdout: Buffer | null; error: { code?: string | number; killed?: boolean; signal?: string | null } | null };

export type ToolRequest = { command: string; args: string[]; timeoutMs: number; maxBytes: number };

const HOST_NICE = 10;

/** Past the run's own time limit, how long the app waits for the host's answer before it gives up on the host. */
const ANSWER_GRACE_MS = 5_000;

// Plain CommonJS run by `node -e`: nothing for a bundler to rewrite, no file to ship beside the build.
const HOST_SOURCE = `
const { execFile } = require("node:child_process");
const os = require("node:os");
try { os.setPriority(Math.max(os.getPriority(), ${HOST_NICE})); } catch {}
const running = new Set();
process.on("message", ({ id, command, args, timeoutMs, maxBytes, path }) => {
  const child = execFile(command, args, { encoding: "buffer", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: maxBytes, windowsHide: true, env: { ...process.env, PATH: path } }, (error, stdout) => {
    running.delete(child);
    process.send({ id, stdout: error ? null : stdout, error: error ? { code: error.code, killed: error.killed, signal: error.signal } : null });
  });
  running.add(child);
});
process.on("disconnect", () => {
  for (const child of running) child.kill("SIGKILL");
  process.exit(0);
});
`;

type Pending = { resolve: (run: ToolRun) => void; reject: (error: unknown) => void; timer: NodeJS.Timeout };

let host: { child: ChildProcess; pending: Map<number, Pending> } | null = null;
let nextId = 1;

/**
 * Runs `command` in the tool host, at background priority, with no shell and
 * the caller's PATH; resolves with what execFile's callback got. Throws the
 * media pool's busy error when the host died or did not answer in time.
 */
export function runInToolHost(request: ToolRequest): Promise<ToolRun> {
  const current = host ?? startHost();
  const { child, pending } = current;
  const id = nextId++;
  return new Promise<ToolRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      // No answer well past the run's own limit: the host is stuck. Its runs fail as busy; the next starts another.
      child.kill("SIGKILL");
    }, request.timeoutMs + ANSWER_GRACE_MS);
    pending.set(id, { resolve, reject, timer });
    child.channel?.ref();
    child.send({ id, ...request, path: process.env.PATH ?? "" }, (error) => {
      if (error) settle(current, id, (entry) => entry.reject(mediaBusy()));
    });
  });
}

/** Stops the host (tests and shutdown); a later run starts another. */
export async function stopToolHost(): Promise<void> {
  const current = host;
  if (!current) return;
  host = null;
  const exited = new Promise<void>((resolve) => current.child.once("exit", () => resolve()));
  current.child.kill("SIGKILL");
  await exited;
}

/** The host's process id, once started (tests). */
export const toolHostPid = () => host?.child.pid;

function startHost(): NonNullable<typeof host> {
  // The app's NODE_OPTIONS may load code meant for the app alone (a profiler, a probe): the host loads none.
  const child = spawn(process.execPath, ["-e", HOST_SOURCE], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    serialization: "advanced",
    windowsHide: true,
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const pending = new Map<number, Pending>();
  const current = { child, pending };
  host = current;
  child.on("message", (message: { id: number; stdout: Uint8Array | null; error: ToolRun["error"] }) => {
    const stdout = message.stdout && Buffer.from(message.stdout.buffer, message.stdout.byteOffset, message.stdout.byteLength);
    settle(current, message.id, (entry) => entry.resolve({ stdout, error: message.error }));
  });
  child.on("error", () => undefined); // reported by 'exit' (or by a failed send)
  child.once("exit", () => {
    if (host === current) host = null;
    for (const id of [...pending.keys()]) settle(current, id, (entry) => entry.reject(mediaBusy()));
  });
  // The host never keeps the app alive: its channel is held only while a run is pending.
  child.unref();
  child.channel?.unref();
  return current;
}

function settle({ child, pending }: NonNullable<typeof host>, id: number, finish: (entry: Pending) => void): void {
  const entry = pending.get(id);
  if (!entry) return;
  pending.delete(id);
  clearTimeout(entry.timer);
  finish(entry);
  if (pending.size === 0) child.channel?.unref();
}
