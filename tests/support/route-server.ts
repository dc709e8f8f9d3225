// The app's real route handlers (app/api/**/route.ts) behind a plain
// node:http server, as Next would call them: integration and fault tests reach
// the app over HTTP on loopback, and so do the simulator's callbacks.
import http from "node:http";
import { stampPeerAddress } from "@/lib/peer-address";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ROUTES: [pattern: RegExp, load: () => Promise<Record<string, unknown>>][] = [
  [/^\/api\/generations$/, () => import("@/app/api/generations/route")],
  [/^\/api\/generations\/(?<id>[^/]+)$/, () => import("@/app/api/generations/[id]/route")],
  [/^\/api\/webhooks\/gateway$/, () => import("@/app/api/webhooks/gateway/route")],
  [/^\/api\/credits$/, () => import("@/app/api/credits/route")],
  [/^\/api\/health$/, () => import("@/app/api/health/route")],
  [/^\/api\/cron\/reconcile$/, () => import("@/app/api/cron/reconcile/route")],
];

export function createRouteServer(): http.Server {
  return http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const found = ROUTES.map(([pattern, load]) => ({ match: pattern.exec(url.pathname), load })).find((r) => r.match);
    if (!found) return void res.writeHead(404).end();
    const handler = (await found.load())[req.method ?? "GET"] as Handler | undefined;
    // Next answers 405 itself for methods a route does not export.
    if (!handler) return void res.writeHead(405).end();
    // As instrumentation.ts does under `next start`: the socket's address ends the chain.
    stampPeerAddress(req);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const response = await handler(
      new Request(url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }),
      { params: Promise.resolve({ ...found.match!.groups }) },
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}
