// The cron's work: poll every stale PENDING task in batches, fail submissions
// the process abandoned (through the store), keep the delivery log within its
// retention bound, run the media copy jobs and delete uploaded inputs past keeping.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { expireStoredMedia, runDueMediaJobs, scheduleMediaCopies } from "@/lib/copies/copy-jobs";
import { sweepUploads } from "@/lib/uploads/upload-cleanup";
import { pruneRateLimits } from "@/lib/rate-limit";
import { failAbandonedSubmits } from "./store";
import { refreshStaleGenerations } from "./refresh";

const DELIVERY_RETENTION_DAYS = 30;
const MAX_BATCHES = 20;
/** Far longer than a submit can take (timeouts and bounded retries): the process died mid-submit. */
const SUBMITTING_ABANDONED_MS = 5 * 60_000;
const ABANDONED_WITH_CALLBACKS =
  "The app stopped before the gateway confirmed this submission. If the gateway started it, the result will appear here when it calls back; otherwise nothing was charged.";
const ABANDONED_WITHOUT_CALLBACKS =
  "The app stopped before the gateway confirmed this submission, and callbacks are off, so a task the gateway may have started cannot be followed here: check the gateway's dashboard before trying again; if it did not start it, nothing was charged.";

export async function reconcile(): Promise<{ polled: number; abandoned: number; prunedDeliveries: number; mediaJobs: number; mediaJobsStillRunning: number; deletedUploads: number }> {
  let polled = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const count = await refreshStaleGenerations();
    polled += count;
    if (count === 0) break;
  }
  // The process died mid-submit. A task the gateway started anyway can reach
  // the generation only through its callback, so say so only where there is one.
  const abandonedBefore = new Date(Date.now() - SUBMITTING_ABANDONED_MS);
  let abandoned = 0;
  for (const callbackEnabled of [true, false]) {
    const errorMessage = callbackEnabled ? ABANDONED_WITH_CALLBACKS : ABANDONED_WITHOUT_CALLBACKS;
    abandoned += await failAbandonedSubmits({ callbackEnabled, createdBefore: abandonedBefore, errorMessage });
  }
  // Rate-limit windows of visitors long gone (lib/rate-limit/index.ts prunes as it goes too).
  await pruneRateLimits();
  const cutoff = new Date(Date.now() - DELIVERY_RETENTION_DAYS * 86_400_000);
  const { count: prunedDeliveries } = await prisma.delivery.deleteMany({ where: { createdAt: { lt: cutoff } } });
  // Copies: jobs any SUCCESS lacks (a crash after the transition), expired
  // copies to delete, then the due jobs this run can lease, waited for within
  // a budget so that a slow host never keeps the cron from answering.
  await scheduleMediaCopies();
  await expireStoredMedia();
  // Uploaded inputs: unused ones after a few hours, a finished generation's after the retention.
  const deletedUploads = await sweepUploads();
  const media = await runDueMediaJobs({ budgetMs: env.MEDIA_CRON_BUDGET_MS });
  return { polled, abandoned, prunedDeliveries, mediaJobs: media.ran, mediaJobsStillRunning: media.stillRunning, deletedUploads };
}
