// The steps of `npm test` and `npm run test:postgres`, one after another, each
// timed: CI's budget is per phase (docs/testing.md, "Under load"), so every
// step says how long it took and the run ends with the list, beside the
// machine's load average (a figure from a busy machine is read as one).
import { spawnSync } from "node:child_process";
import os from "node:os";

export type Step = { name: string; command: string; args: string[]; env?: NodeJS.ProcessEnv };

const minutes = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
const load = () => os.loadavg()[0]!.toFixed(1);

/** Runs the steps in order, stopping at the first that fails (with its exit code). */
export function runSteps(steps: Step[]): void {
  const took: string[] = [];
  const summary = () => {
    console.log(`--- durations (${os.availableParallelism()} cores)`);
    for (const line of took) console.log(line);
  };
  for (const step of steps) {
    console.log(`--- ${step.name}: ${step.command} ${step.args.join(" ")}`);
    const started = Date.now();
    const result = spawnSync(step.command, step.args, { env: step.env ?? process.env, stdio: "inherit" });
    const line = `${step.name}: ${minutes(Date.now() - started)} (load average ${load()})${result.status === 0 ? "" : ", failed"}`;
    took.push(line);
    console.log(`--- ${line}`);
    if (result.status !== 0) {
      summary();
      process.exit(result.status ?? 1);
    }
  }
  summary();
}
