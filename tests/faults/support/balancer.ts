// A round-robin load balancer on loopback in front of several app instances,
// as a platform's router would be: each request goes to the next instance;
// one that refuses the connection (killed) is skipped.
import http from "node:http";
import type { AddressInfo } from "node:net";

export async function startBalancer(targets: string[]) {
  let next = 0;
  const served = new Map<string, number>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name))) as Record<string, string>;
    for (let tried = 0; tried < targets.length; tried++) {
      const target = targets[next++ % targets.length]!;
      let response: Response;
      let body: Buffer;
      try {
        response = await fetch(new URL(req.url ?? "/", target), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        // Read inside the try: an instance killed mid-answer ends the body with "terminated", which
        // must become the router's 502, not an unhandled rejection that leaves the client waiting.
        body = Buffer.from(await response.arrayBuffer());
      } catch (error) {
        // Refused: the instance is down and never saw the request, so the next
        // one may serve it. Anything else may have reached the app: a 502, as a router answers.
        if ((error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED") continue;
        break;
      }
      served.set(target, (served.get(target) ?? 0) + 1);
      const outHeaders = Object.fromEntries([...response.headers].filter(([name]) => !["content-encoding", "content-length", "transfer-encoding", "connection"].includes(name)));
      return void res.writeHead(response.status, outHeaders).end(body);
    }
    res.writeHead(502).end();
  });
  // Idle connections outlive the test client's (undici keeps them 4 s), as next-server.ts does for the
  // instances: at Node's 5 s, a loaded machine races the client's next request on a closing socket
  // ("other side closed", seen in CI on the submits after the 6 s rate-limit test).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Requests each instance answered. */
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
