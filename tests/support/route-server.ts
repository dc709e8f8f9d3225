// The app's real route handlers (app/api/**/route.ts) behind a plain
// node:http server, as Next would call them: integration and fault tests reach
// the app over HTTP on loopback, and so do the simulator's callbacks.
import http from "node:http";
import { stampPeerAddress } from "@/lib/peer-address";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ROUTES: [pattern: RegExp, load: () => Promise<Record<string, unknown>>][] = [
  [/^\/api\/generations$/, () => import("@/app/api/generations/route")],
  [/^\/api\/generations\/events$/, () => import("@/app/api/generations/events/route")],
  [/^\/api\/generations\/(?<id>[^/]+)$/, () => import("@/app/api/generations/[id]/route")],
  [/^\/api\/webhooks\/gateway$/, () => import("@/app/api/webhooks/gateway/route")],
  [/^\/api\/credits$/, () => import("@/app/api/credits/route")],
  [/^\/api\/spend$/, () => import("@/app/api/spend/route")],
  [/^\/api\/health$/, () => import("@/app/api/health/route")],
  [/^\/api\/cron\/reconcile$/, () => import("@/app/api/cron/reconcile/route")],
  [/^\/api\/media\/(?<id>[^/]+)$/, () => import("@/app/api/media/[id]/route")],
];

const OPEN_PATHS = new Set(["/api/webhooks/gateway", "/api/health", "/api/cron/reconcile"]);

async function issueViewerCookie(pathname: string, headers: Headers): Promise<{ setCookie?: string }> {
  if (OPEN_PATHS.has(pathname)) return {};
  const { viewerSecret } = await import("@/lib/viewer");
  const { ensureViewerCookie, VIEWER_COOKIE } = await import("@/lib/viewer-cookie");
  const { value, renewed } = ensureViewerCookie(headers.get("cookie"), viewerSecret());
  if (!renewed) return {};
  const others = (headers.get("cookie") ?? "").split(";").filter((c) => c.trim() && !c.trim().startsWith(`${VIEWER_COOKIE}=`));
  headers.set("cookie", [...others, `${VIEWER_COOKIE}=${value}`].join("; "));
  return { setCookie: `${VIEWER_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax` };
}

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
    // As proxy.ts does: a visitor without a valid cookie gets a new one, on the request and the response.
    const { setCookie } = await issueViewerCookie(url.pathname, headers);
    // Aborted when the client goes away, as Next does (event streams rely on it).
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    const response = await handler(
      new Request(url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, signal: gone.signal }),
      { params: Promise.resolve({ ...found.match!.groups }) },
    );
    const responseHeaders: Record<string, string | string[]> = Object.fromEntries(response.headers);
    if (setCookie) responseHeaders["set-cookie"] = setCookie;
    res.writeHead(response.status, responseHeaders);
    // Streamed, not buffered: an event stream never ends on its own.
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    // As Next does (it pipes with a signal tied to the socket): a client that goes away cancels the body.
    res.on("close", () => void reader.cancel().catch(() => undefined));
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) res.write(next.value);
    } catch {
      // The client went away mid-stream.
    }
    res.end();
  });
}
