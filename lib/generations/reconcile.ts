// The cron's work: poll every stale PENDING task in batches, fail submissions
// the process abandoned (through the store), give back the credit holds of
// failed submissions no task claimed in time, keep the delivery log within its
// retention bound, run the media copy jobs, send the due ready emails and delete uploaded inputs past keeping.
import "server-only";
import { listOpenHoldsOfFailedSubmissions } from "@/lib/credits/ledger";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { expireStoredMedia, runDueMediaJobs, scheduleMediaCopies } from "@/lib/copies/copy-jobs";
import { sweepUploads } from "@/lib/uploads/upload-cleanup";
import { sendDueReadyEmails } from "@/lib/notifications/send-ready-emails";
import { pruneRateLimits } from "@/lib/rate-limit";
import { failAbandonedSubmits, releaseHoldOf } from "./store";
import { refreshStaleGenerations } from "./refresh";

const DELIVERY_RETENTION_DAYS = 30;
const MAX_BATCHES = 20;
/** Far longer than a submit can take (timeouts and bounded retries): the process died mid-submit. */
const SUBMITTING_ABANDONED_MS = 5 * 60_000;
const ABANDONED_WITH_CALLBACKS =
  "The app stopped before the gateway confirmed this submission. If the gateway started it, the result will appear here when it calls back; otherwise nothing was charged.";
const ABANDONED_WITHOUT_CALLBACKS =
  "The app stopped before the gateway confirmed this submission, and callbacks are off, so a task the gateway may have started cannot be followed here: check the gateway's dashboard before trying again; if it did not start it, nothing was charged.";

/** Failed submissions' holds looked at per run, the longest failed first: the next run takes the rest. */
const RELEASE_BATCH = 200;

export async function reconcile(): Promise<{
  polled: number;
  abandoned: number;
  releasedHolds: number;
  prunedDeliveries: number;
  mediaJobs: number;
  mediaJobsStillRunning: number;
  deletedUploads: number;
  readyEmails: number;
}> {
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
  const releasedHolds = await releaseUnclaimedHolds();
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
  // Ready emails an instance left due (a restart before its retry, a crash mid-send).
  const readyEmails = (await sendDueReadyEmails()).sent;
  return { polled, abandoned, releasedHolds, prunedDeliveries, mediaJobs: media.ran, mediaJobsStillRunning: media.stillRunning, deletedUploads, readyEmails };
}

/**
 * A submission that failed where the gateway may have started its task anyway
 * keeps its credits held, since that task's callback may still claim it and
 * its SUCCESS be captured. Past TASK_LOST_AFTER_MS (the time after which a
 * task the gateway does not know is taken as lost) no claim is expected: the
 * hold is given back, once, whatever how many runs see it. A task that claims
 * it later still completes, and is free to its owner (logged).
 */
async function releaseUnclaimedHolds(): Promise<number> {
  const cutoff = Date.now() - env.TASK_LOST_AFTER_MS;
  const open = await listOpenHoldsOfFailedSubmissions({ limit: RELEASE_BATCH });
  let released = 0;
  for (const { generationId, completedAt } of open) {
    if (completedAt === null) continue;
    if (completedAt.getTime() >= cutoff) break;
    const credits = await releaseHoldOf({
      id: generationId,
      where: { state: "SUBMIT_FAILED", taskId: null },
      note: "submission failed and no task claimed it in time",
    });
    if (credits > 0) {
      released++;
      console.info(`[framehook] generation ${generationId}: no task claimed the failed submission in time; its hold of ${credits} credits was given back`);
    }
  }
  return released;
}
