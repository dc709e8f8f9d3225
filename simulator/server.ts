// The simulator's HTTP server: routes each request to the gateway API, the
// result files or the /__control API, logs one line per request, and can stop
// listening for a while (the gateway "down": connection refused).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { handleApi } from "./api";
import type { SimulatorConfig } from "./config";
import { handleControl } from "./control";
import { BodyError, errorReply, type Reply } from "./http";
import { serveMedia } from "./media";
import { createState, type RequestRecord } from "./state";

export function createSimulator(config: SimulatorConfig) {
  let publicUrl = `http://${config.SIMULATOR_HOST}:${config.SIMULATOR_PORT}`;
  const state = createState(config, () => publicUrl);
  const { log } = state;
  let port = config.SIMULATOR_PORT;
  let downTimer: NodeJS.Timeout | null = null;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<Reply | null> {
    const { pathname } = url;
    if (pathname.startsWith("/__control/")) return handleControl(state, req, pathname, url);
    if (pathname.startsWith("/media/")) return serveMedia(state, req, res, url);
    return handleApi(state, req, pathname);
  }

  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    const url = new URL(req.url ?? "/", publicUrl);
    let reply: Reply | null;
    try {
      reply = await handle(req, res, url);
    } catch (error) {
      if (!(error instanceof BodyError)) console.error("[simulator]", error);
      reply = error instanceof BodyError ? errorReply(error.status, error.code, error.message) : errorReply(500, "internal_error", "Simulator error.");
    }
    if (reply && !res.headersSent && !res.destroyed) {
      res.writeHead(reply.status, { "Content-Type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.body ?? {}));
      if (reply.after) res.once("finish", reply.after);
    }
    const cut = !reply && !res.headersSent;
    if (url.pathname.startsWith("/api/")) record(req, url.pathname, cut ? 0 : res.statusCode, started);
    log(`${req.method} ${url.pathname} ${cut ? "connection cut, no answer" : res.statusCode} ${Date.now() - started}ms`);
  });

  function record(req: http.IncomingMessage, pathname: string, status: number, at: number) {
    const entry: RequestRecord = { method: req.method ?? "?", path: pathname, status, at, delayedMs: (req as { delayedMs?: number }).delayedMs ?? 0 };
    const body = (req as { parsedBody?: unknown }).parsedBody as { input?: { prompt?: unknown } } | undefined;
    if (typeof body?.input?.prompt === "string") entry.prompt = body.input.prompt;
    const taskId = pathname.match(/^\/api\/generate\/([^/]+)$/)?.[1];
    if (taskId) entry.taskId = decodeURIComponent(taskId);
    const traceparent = req.headers.traceparent;
    if (typeof traceparent === "string" && /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/.test(traceparent)) entry.traceparent = traceparent;
    state.requests.push(entry);
    if (state.requests.length > 10_000) state.requests.shift();
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, config.SIMULATOR_HOST, () => {
        server.off("error", reject);
        resolve();
      });
    });

  // Down for real: new connections are refused and open ones are cut, then the
  // same port is listened on again. Tasks keep running and callbacks keep going.
  state.refuseConnections = (ms: number) => {
    server.close();
    server.closeAllConnections();
    log(`down: refusing connections for ${ms}ms`);
    downTimer = setTimeout(() => {
      downTimer = null;
      listen().then(
        () => log("up again"),
        (error: unknown) => console.error("[simulator] could not listen again:", error),
      );
    }, ms);
  };

  state.closeIdleConnections = () => server.closeIdleConnections();

  return {
    server,
    state,
    gateway: state.gateway,
    clips: state.clips,
    async listen(): Promise<string> {
      await listen();
      port = (server.address() as AddressInfo).port;
      publicUrl = `http://${config.SIMULATOR_HOST}:${port}`;
      return publicUrl;
    },
    async close(): Promise<void> {
      if (downTimer) clearTimeout(downTimer);
      state.gateway.stop();
      state.callbacks.reset();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
