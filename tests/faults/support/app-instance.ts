// One app instance as its own process: the app's real route handlers on a
// fixed loopback port (so that callback URLs stay valid across a restart).
// Run by app-process.ts; reads its whole configuration from the environment.
import http from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ROUTES: [RegExp, () => Promise<Record<string, unknown>>][] = [
  [/^\/api\/generations$/, () => import("@/app/api/generations/route")],
  [/^\/api\/generations\/(?<id>[^/]+)$/, () => import("@/app/api/generations/[id]/route")],
  [/^\/api\/webhooks\/gateway$/, () => import("@/app/api/webhooks/gateway/route")],
  [/^\/api\/cron\/reconcile$/, () => import("@/app/api/cron/reconcile/route")],
];

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
  const found = ROUTES.map(([pattern, load]) => ({ match: pattern.exec(url.pathname), load })).find((r) => r.match);
  if (!found) return void res.writeHead(404).end();
  const handler = (await found.load())[req.method ?? "GET"] as Handler | undefined;
  if (!handler) return void res.writeHead(405).end();
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const response = await handler(new Request(url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }), {
    params: Promise.resolve({ ...found.match!.groups }),
  });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`app instance ${process.pid} listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
