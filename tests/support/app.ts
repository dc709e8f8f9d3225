// The app's real route handlers behind a plain HTTP server on loopback, so the
// simulator's callbacks reach them over HTTP. Env must be set before the app's
// modules load, hence the dynamic imports.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SimulatorControl } from "./simulator-control";

export async function startApp() {
  const routes: Record<string, (req: Request) => Promise<Response>> = {};
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const handler = routes[`${req.method} ${url.pathname}`];
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const response = await handler(
      new Request(url, { method: req.method, headers: req.headers as Record<string, string>, body: chunks.length ? Buffer.concat(chunks) : undefined }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.PUBLIC_BASE_URL = baseUrl;

  const webhook = await import("@/app/api/webhooks/gateway/route");
  routes["POST /api/webhooks/gateway"] = (request) => webhook.POST(request, undefined);

  return {
    baseUrl,
    simulator: new SimulatorControl(process.env.GATEWAY_BASE_URL!),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
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
