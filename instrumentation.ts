// Runs once when the server starts (Next's instrumentation hook). On the Node
// runtime it makes the socket's address visible to the rate limit
// (lib/viewer/peer-address.ts) and bounds request bodies before Next reads them
// (lib/body-guard.ts). NEXT_RUNTIME is Next's own switch for this file.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { installPeerStamp } = await import("./lib/viewer/peer-address");
    installPeerStamp();
    const { installBodyGuard } = await import("./lib/body-guard");
    installBodyGuard();
  }
}
