// The cron's work: poll every stale PENDING task in batches, and keep the
// delivery log within its retention bound.
import "server-only";
import { prisma } from "@/lib/db";
import { announceGenerationChange } from "./publish-change";
import { refreshStaleGenerations } from "./refresh";

const DELIVERY_RETENTION_DAYS = 30;
const MAX_BATCHES = 20;
/** Far longer than a submit can take (timeouts and bounded retries): the process died mid-submit. */
const SUBMITTING_ABANDONED_MS = 5 * 60_000;

export async function reconcile(): Promise<{ polled: number; abandoned: number; prunedDeliveries: number }> {
  let polled = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const count = await refreshStaleGenerations();
    polled += count;
    if (count === 0) break;
  }
  const stuck = { state: "SUBMITTING" as const, createdAt: { lt: new Date(Date.now() - SUBMITTING_ABANDONED_MS) } };
  // Live gallery (#16): the ids, to announce what this batch changed.
  const ids = (await prisma.generation.findMany({ where: stuck, select: { id: true } })).map((row) => row.id);
  const { count: abandoned } = await prisma.generation.updateMany({
    where: { ...stuck, id: { in: ids } },
    data: {
      state: "SUBMIT_FAILED",
      creditsConsumed: 0,
      errorCode: "submit_interrupted",
      errorMessage:
        "The app stopped before the gateway confirmed this submission. If the gateway started it, the result will appear here when it calls back; otherwise nothing was charged.",
      completedAt: new Date(),
    },
  });
  for (const id of ids) await announceGenerationChange({ id });
  const cutoff = new Date(Date.now() - DELIVERY_RETENTION_DAYS * 86_400_000);
  const { count: prunedDeliveries } = await prisma.delivery.deleteMany({ where: { createdAt: { lt: cutoff } } });
  return { polled, abandoned, prunedDeliveries };
}
