// One app instance as its own process: the app's real route handlers on a
// fixed loopback port (so that callback URLs stay valid across a restart).
// Run by app-process.ts; reads its whole configuration from the environment.
import type { AddressInfo } from "node:net";
import { createRouteServer } from "../../support/route-server";
import { warmUpApp } from "./warm-up";

// Warm before listening, as a deployed instance is before it takes traffic:
// otherwise its first request (seconds on a loaded machine) races the test's clocks.
await warmUpApp();
const server = createRouteServer();

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`app instance ${process.pid} listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
