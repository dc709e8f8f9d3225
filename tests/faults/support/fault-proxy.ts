// A small HTTP proxy on loopback that stands between two real processes and
// misbehaves on request: answer an error instead of forwarding, or hold a
// request before forwarding it. Used in front of the app's callback route
// (the app "failing") and in front of the simulator (the gateway "slow").
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ProxyDecision = {
  fail?: number;
  delayMs?: number;
  /** Forward only once this settles (e.g. once a later request was answered). */
  hold?: Promise<unknown>;
  /** Called once the target's answer has been passed back. */
  onAnswered?: () => void;
};
export type ProxiedRequest = { method: string; path: string; decision: ProxyDecision; status?: number };

export async function startFaultProxy(decide: (req: { method: string; path: string }) => ProxyDecision = () => ({})) {
  let target: string | undefined;
  const log: ProxiedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry: ProxiedRequest = { method: req.method ?? "GET", path: req.url ?? "/", decision: decide({ method: req.method ?? "GET", path: req.url ?? "/" }) };
    log.push(entry);
    if (entry.decision.delayMs) await new Promise((resolve) => setTimeout(resolve, entry.decision.delayMs));
    if (entry.decision.hold) await entry.decision.hold;
    if (entry.decision.fail) {
      entry.status = entry.decision.fail;
      return void res.writeHead(entry.decision.fail, { "Content-Type": "application/json" }).end('{"error":{"code":"injected"}}');
    }
    try {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name))) as Record<string, string>;
      const response = await fetch(new URL(req.url ?? "/", target), {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      entry.status = response.status;
      const body = Buffer.from(await response.arrayBuffer());
      const outHeaders = Object.fromEntries([...response.headers].filter(([name]) => !["content-encoding", "content-length", "transfer-encoding", "connection"].includes(name)));
      if (!res.destroyed) res.writeHead(response.status, outHeaders).end(body);
      entry.decision.onAnswered?.();
    } catch {
      entry.status = 502;
      if (!res.destroyed) res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    /** Where requests go once forwarded (it may be known only after the proxy is up). */
    setTarget(url: string) {
      target = url;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
