// Runs once when the server starts (Next's instrumentation hook). On the Node
// runtime it makes the socket's address visible to the rate limit
// (lib/viewer/peer-address.ts) and bounds request bodies before Next reads them
// (lib/http/body-guard.ts), uploads by the access gate too, drains the
// instance on SIGTERM (lib/lifecycle/drain.ts), and starts traces when an
// OTLP endpoint is set (lib/traces). NEXT_RUNTIME is Next's own switch for
// this file.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { drainOnSigterm } = await import("./lib/lifecycle/drain");
    drainOnSigterm();
    // A bad environment is reported where it always is (the first request that reads it): here it only leaves traces off.
    const tracing = await import("./lib/env").then(({ env }) => env.tracing, () => null);
    if (tracing) {
      // The only import of OpenTelemetry's SDK: without an endpoint none of it is loaded.
      const { startTracing } = await import("./lib/traces/start-tracing");
      startTracing(tracing);
    }
    const { installPeerStamp } = await import("./lib/viewer/peer-address");
    installPeerStamp();
    const { installBodyGuard } = await import("./lib/http/body-guard");
    // Loaded on the first upload: the gate reads the environment, which start-up does not check here.
    installBodyGuard({
      loadGate: async () => {
        const { accessGateHeaders, offersPassword } = await import("./lib/viewer/access-gate");
        return { passes: offersPassword, headers: accessGateHeaders };
      },
    });
  }
}
