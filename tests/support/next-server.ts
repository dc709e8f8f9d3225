// The app as it runs in production: `next start` over the test build
// (scripts/test-build.ts), as a process of its own with the test's
// environment, on a loopback port. proxy.ts, the routes, pages and server
// actions are the real ones; so are Next's routing, body handling and streaming.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ensureTestBuild } from "../../scripts/test-build";

export type NextServer = {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

const NEXT_BIN = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");
/** Stops the server if this process ends without stopping it (a file whose afterAll never ran): see exit-with-parent.cjs. */
const EXIT_WITH_PARENT = path.join(import.meta.dirname, "exit-with-parent.cjs");

/**
 * Starts `next start` on `port` with process.env plus `env`, and resolves once
 * it answers and has loaded the modules a callback or submit needs (a cold
 * first request takes seconds on a loaded machine, longer than the
 * simulator's callback timeout).
 */
export async function startNextServer({ port, env = {} }: { port: number; env?: Record<string, string> }): Promise<NextServer> {
  const merged = { ...process.env, ...env } as Record<string, string>;
  const distDir = await ensureTestBuild(merged.DATABASE_URL!);
  // Idle connections outlive the test client's (undici keeps them 4 s): on a loaded machine, a server closing
  // at Node's 5 s races the client's next request on that socket ("other side closed").
  const child = spawn(process.execPath, ["--require", EXIT_WITH_PARENT, NEXT_BIN, "start", "-p", String(port), "-H", "127.0.0.1", "--keepAliveTimeout", "65000"], {
    env: { ...merged, NODE_ENV: "production", NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const server: NextServer = {
    url,
    child,
    output: () => output,
    async kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      // A server that ignores SIGTERM (busy closing streams) is killed outright.
      const force = setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(force);
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`next start exited (${child.exitCode ?? child.signalCode}):\n${output}`);
    if (Date.now() > deadline) {
      await server.kill("SIGKILL");
      throw new Error(`next start did not answer within 60 s:\n${output}`);
    }
    const ready = await fetch(`${url}/api/ping`).then((r) => r.ok, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await warmUp(url);
  return server;
}

/** Loads the proxy, Prisma and the routes a test's first callback or submit hits; none of these requests changes anything. */
async function warmUp(url: string) {
  const quietly = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init).then((r) => r.arrayBuffer(), () => undefined);
  await quietly("/api/generations?limit=1");
  await Promise.all([
    quietly("/api/webhooks/gateway", { method: "POST", body: "{}" }),
    quietly("/api/generations/00000000-0000-0000-0000-000000000000"),
    quietly("/api/cron/reconcile"),
  ]);
}
