// Child processes of the bench: each in its own process group, so that
// stopping one stops whatever it spawned, and nothing outlives the run.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";

const started = new Set<ChildProcess>();
/** Stops for what runProcess/startProcess did not start (the throwaway PostgreSQL server). */
const cleanups = new Set<() => Promise<void>>();

/** Registers a stop that stopAllProcesses() runs; call the returned function once it has run otherwise. */
export function onStopAll(stop: () => Promise<void>): () => void {
  cleanups.add(stop);
  return () => cleanups.delete(stop);
}

export function startProcess(command: string, args: string[], { env, log }: { env: NodeJS.ProcessEnv; log: string }): ChildProcess {
  const out = fs.openSync(log, "a");
  const child = spawn(command, args, { env, stdio: ["ignore", out, out], detached: true });
  fs.closeSync(out);
  started.add(child);
  child.on("exit", () => started.delete(child));
  return child;
}

/** Runs a command to completion within `timeoutMs`; rejects on a non-zero exit or on timeout. */
export async function runProcess(
  command: string,
  args: string[],
  { env, log, timeoutMs }: { env: NodeJS.ProcessEnv; log: string; timeoutMs: number },
): Promise<void> {
  const child = startProcess(command, args, { env, log });
  const timer = setTimeout(() => void stopProcess(child), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code ?? "a signal"} (timeout ${timeoutMs} ms); see ${log}`);
}

export async function stopProcess(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signalGroup(child.pid, "SIGTERM");
  const timer = setTimeout(() => signalGroup(child.pid!, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function stopAllProcesses(): Promise<void> {
  await Promise.all([...started].map((child) => stopProcess(child)));
  await Promise.all([...cleanups].map((stop) => stop()));
  cleanups.clear();
}

function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
