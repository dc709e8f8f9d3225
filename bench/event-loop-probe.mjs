// Loaded into the app's `next start` process by the bench only (NODE_OPTIONS
// --import, bench/stack.ts): samples the event loop's delay and answers it on a
// loopback port of its own. No route or module of the app knows of it.
import http from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";

const port = Number(process.env.BENCH_EVENT_LOOP_PORT);
// A process this one spawns inherits NODE_OPTIONS: only the first listener keeps the port.
if (port > 0) {
  const RESOLUTION_MS = 5;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  // Each sample is the time between two timer ticks, so it includes the resolution itself.
  const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const server = http.createServer((request, response) => {
    const figures = { pid: process.pid, samples: histogram.count, p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
    if (request.url === "/reset") histogram.reset();
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(figures));
  });
  server.on("error", () => histogram.disable());
  server.listen(port, "127.0.0.1");
  server.unref();
}
