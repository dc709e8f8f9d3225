// The cron's work: poll every stale PENDING task in batches, keep the
// delivery log within its retention bound, and run the media copy jobs.
import "server-only";
import { prisma } from "@/lib/db";
import { expireStoredMedia, runDueMediaJobs, scheduleMediaCopies } from "@/lib/media/copy-jobs";
import { refreshStaleGenerations } from "./refresh";

const DELIVERY_RETENTION_DAYS = 30;
const MAX_BATCHES = 20;
/** Far longer than a submit can take (timeouts and bounded retries): the process died mid-submit. */
const SUBMITTING_ABANDONED_MS = 5 * 60_000;

export async function reconcile(): Promise<{ polled: number; abandoned: number; prunedDeliveries: number; mediaJobs: number }> {
  let polled = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const count = await refreshStaleGenerations();
    polled += count;
    if (count === 0) break;
  }
  const { count: abandoned } = await prisma.generation.updateMany({
    where: { state: "SUBMITTING", createdAt: { lt: new Date(Date.now() - SUBMITTING_ABANDONED_MS) } },
    data: {
      state: "SUBMIT_FAILED",
      creditsConsumed: 0,
      errorCode: "submit_interrupted",
      errorMessage:
        "The app stopped before the gateway confirmed this submission. If the gateway started it, the result will appear here when it calls back; otherwise nothing was charged.",
      completedAt: new Date(),
    },
  });
  const cutoff = new Date(Date.now() - DELIVERY_RETENTION_DAYS * 86_400_000);
  const { count: prunedDeliveries } = await prisma.delivery.deleteMany({ where: { createdAt: { lt: cutoff } } });
  // Copies: jobs any SUCCESS lacks (a crash after the transition), expired
  // copies to delete, then every due job this run can lease.
  await scheduleMediaCopies();
  await expireStoredMedia();
  const mediaJobs = await runDueMediaJobs();
  return { polled, abandoned, prunedDeliveries, mediaJobs };
}
