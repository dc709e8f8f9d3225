// Loads the app's route modules and compiles Prisma's query engine before a
// fault test starts its clocks. A cold in-process app spends its first request
// on that (seconds on a loaded machine), longer than the gateway's callback
// timeout or a lock these tests hold: the first test would then measure the
// cold start, not the fault.
export async function warmUpApp(): Promise<void> {
  await Promise.all([
    import("@/app/api/generations/route"),
    import("@/app/api/generations/[id]/route"),
    import("@/app/api/webhooks/gateway/route"),
    import("@/app/api/cron/reconcile/route"),
  ]);
  const { prisma } = await import("@/lib/db");
  await prisma.generation.count();
}
