// A reverse proxy in front of `next start` that also answers a few pages of
// the bench's own: a baseline page then shares the app's origin (its cookie,
// its six HTTP/1.1 connections, the same response headers on every request it
// forwards) without a route in the product. Both the app's pages and the
// bench's are loaded through it, so the extra hop is the same for both.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export type OriginProxy = { url: string; servePage: (pathname: string, html: string) => void; close: () => Promise<void> };

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);
const endToEnd = (headers: http.IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

export async function startOriginProxy(appUrl: string): Promise<OriginProxy> {
  const app = new URL(appUrl);
  const agent = new http.Agent({ keepAlive: true });
  const pages = new Map<string, Buffer>();
  const server = http.createServer((request, response) => {
    const page = pages.get(request.url ?? "");
    if (page) {
      // As Next answers a dynamic page: compressed, never cached.
      const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "");
      const body = gzip ? gzipSync(page) : page;
      response.writeHead(200, {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "private, no-cache, no-store, max-age=0, must-revalidate",
        Vary: "Accept-Encoding",
        ...(gzip ? { "Content-Encoding": "gzip" } : {}),
        "Content-Length": String(body.byteLength),
      });
      response.end(body);
      return;
    }
    const upstream = http.request({ host: app.hostname, port: app.port, method: request.method, path: request.url, headers: endToEnd(request.headers), agent }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(response);
    });
    upstream.once("error", () => response.destroy());
    // The browser cancelled (a media range it no longer needs, a closed event stream): so does the proxy.
    response.once("close", () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    servePage: (pathname, html) => pages.set(pathname, Buffer.from(html)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
