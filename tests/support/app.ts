// An app for integration tests: the production build under `next start`
// (next-server.ts) on a loopback port, beside a gateway simulator process of
// its own. The app's environment is also set on this process before the test
// imports any of the app's modules, so that both sides read the same secrets
// and database.
import { freePort } from "../../scripts/free-port";
import { startSimulator } from "./global-setup";
import { startNextServer, type NextServer } from "./next-server";
import { SimulatorControl } from "./simulator-control";
import { cookieVisitor } from "./visitor";

export async function startApp({
  env = {},
  simulatorEnv = {},
  port,
}: {
  env?: Record<string, string>;
  simulatorEnv?: Record<string, string>;
  /** The app's port (default: a free one). */
  port?: number;
} = {}) {
  const simulator = await startSimulator({
    SIMULATOR_PENDING_MS: "300",
    SIMULATOR_PENDING_JITTER_MS: "0",
    SIMULATOR_CALLBACK_BACKOFF_MS: "100",
    SIMULATOR_LOG: "quiet",
    ...simulatorEnv,
  });
  const appPort = port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${appPort}`;
  const appEnv = { PUBLIC_BASE_URL: baseUrl, GATEWAY_BASE_URL: simulator.url, ...env };
  Object.assign(process.env, appEnv);
  let server: NextServer;
  try {
    server = await startNextServer({ port: appPort, env: appEnv });
  } catch (error) {
    simulator.child.kill("SIGKILL");
    throw error;
  }

  const visitor = () => cookieVisitor(baseUrl);

  return {
    baseUrl,
    simulator: new SimulatorControl(simulator.url),
    /** fetch against the app as one visitor: `app.fetch("/api/generations", { method: "POST", json: {...} })`. */
    fetch: visitor(),
    /** Another visitor, with a cookie jar of its own. */
    visitor,
    /** What `next start` printed so far (stdout and stderr). */
    output: () => server.output(),
    /** The `next start` process, e.g. to kill it. */
    server,
    async close() {
      simulator.child.kill("SIGTERM");
      // A simulator busy with callbacks may not stop at once: never leave one behind.
      setTimeout(() => simulator.child.exitCode === null && simulator.child.kill("SIGKILL"), 2000).unref();
      await server.kill();
    },
  };
}

export { waitFor } from "./wait";
