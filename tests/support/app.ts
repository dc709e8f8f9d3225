// The app's real route handlers behind a plain HTTP server on loopback, so
// tests and the simulator's callbacks reach them over HTTP. Env must be set
// before the app's modules load, hence the dynamic imports.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startSimulator } from "./global-setup";
import { SimulatorControl } from "./simulator-control";

type RouteModule = Record<string, unknown>;
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ROUTES: [pattern: RegExp, load: () => Promise<RouteModule>][] = [
  [/^\/api\/generations$/, () => import("@/app/api/generations/route")],
  [/^\/api\/generations\/(?<id>[^/]+)$/, () => import("@/app/api/generations/[id]/route")],
  [/^\/api\/webhooks\/gateway$/, () => import("@/app/api/webhooks/gateway/route")],
  [/^\/api\/credits$/, () => import("@/app/api/credits/route")],
  [/^\/api\/health$/, () => import("@/app/api/health/route")],
  [/^\/api\/cron\/reconcile$/, () => import("@/app/api/cron/reconcile/route")],
];

export async function startApp({ env = {}, simulatorEnv = {} }: { env?: Record<string, string>; simulatorEnv?: Record<string, string> } = {}) {
  const simulator = await startSimulator({
    SIMULATOR_PENDING_MS: "300",
    SIMULATOR_PENDING_JITTER_MS: "0",
    SIMULATOR_CALLBACK_BACKOFF_MS: "100",
    SIMULATOR_LOG: "quiet",
    ...simulatorEnv,
  });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const found = ROUTES.map(([pattern, load]) => ({ match: pattern.exec(url.pathname), load })).find((r) => r.match);
    if (!found) return void res.writeHead(404).end();
    const handler = (await found.load())[req.method ?? "GET"] as Handler | undefined;
    // Next answers 405 itself for methods a route does not export.
    if (!handler) return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    if (!headers.has("x-forwarded-for")) headers.set("x-forwarded-for", req.socket.remoteAddress ?? "");
    const response = await handler(
      new Request(url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }),
      { params: Promise.resolve({ ...found.match!.groups }) },
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, { PUBLIC_BASE_URL: baseUrl, GATEWAY_BASE_URL: simulator.url, ...env });

  return {
    baseUrl,
    simulator: new SimulatorControl(simulator.url),
    /** fetch against the app: `app.fetch("/api/generations", { method: "POST", json: {...} })`. */
    fetch(path: string, init: RequestInit & { json?: unknown } = {}) {
      const { json, ...rest } = init;
      return fetch(new URL(path, baseUrl), {
        ...rest,
        headers: { ...(json === undefined ? {} : { "Content-Type": "application/json" }), ...rest.headers },
        body: json === undefined ? rest.body : JSON.stringify(json),
      });
    },
    async close() {
      simulator.child.kill("SIGTERM");
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
