// Starts and kills app instances as separate processes over one database, to
// restart "the app" the way a deploy or a crash does: each is `next start`
// over the test build (tests/support/next-server.ts), on a fixed loopback
// port so that callback URLs stay valid across a restart.
import type { ChildProcess } from "node:child_process";
import { startNextServer } from "../../support/next-server";

export { freePort } from "../../../scripts/free-port";

export type AppProcess = {
  url: string;
  child: ChildProcess;
  /** What `next start` printed so far (stdout and stderr). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

export async function startAppProcess({ port, env }: { port: number; env: Record<string, string> }): Promise<AppProcess> {
  const server = await startNextServer({ port, env });
  return { url: server.url, child: server.child, output: server.output, kill: (signal: NodeJS.Signals = "SIGKILL") => server.kill(signal) };
}
