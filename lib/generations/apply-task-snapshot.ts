// The single writer of task outcomes. Callbacks, browser-driven refreshes and
// the cron all end here. The transition is a conditional update
// (WHERE state = 'PENDING'), so N concurrent duplicates give one transition.
import "server-only";
import { invalidateCreditBalance } from "@/lib/credits";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { requestMediaCopies } from "@/lib/media/copy-jobs";
import type { DeliveryOutcome, DeliverySource } from "@/lib/generated/prisma/client";
import type { TaskSnapshot } from "@/lib/gateway/task";
import { recordDelivery } from "./delivery-log";
import { updateGenerationIf } from "./update-if";

const METADATA_MAX_BYTES = 8 * 1024;

const INFERRED_FAILURE = { state: "FAILURE" as const, errorCode: "task_not_found" };

export type ApplyResult = { outcome: DeliveryOutcome; deliveryId: number };

type ApplyArgs = { generationId: string; snapshot: TaskSnapshot; source: DeliverySource; detail?: string };

export function applyTaskSnapshot(args: ApplyArgs): Promise<ApplyResult> {
  return apply(args, { onlyIfHeld: false }) as Promise<ApplyResult>;
}

/**
 * As applyTaskSnapshot, but when the generation does not hold
 * `snapshot.taskId` (unknown, not yet stored, another task) nothing is
 * written or recorded and null comes back: the callback receiver's fast
 * path, which skips its own read when the usual case holds.
 */
export function applyTaskSnapshotIfHeld(args: ApplyArgs): Promise<ApplyResult | null> {
  return apply(args, { onlyIfHeld: true });
}

async function apply({ generationId, snapshot, source, detail }: ApplyArgs, { onlyIfHeld }: { onlyIfHeld: boolean }): Promise<ApplyResult | null> {
  const now = new Date();
  const notHeld = (current: { taskId: string | null } | null) => onlyIfHeld && current?.taskId !== snapshot.taskId;
  const match = { id: generationId, taskId: snapshot.taskId, state: "PENDING" as const };

  let outcome: DeliveryOutcome;
  if (snapshot.state === "PENDING") {
    const updated = await updateGenerationIf({ where: match, data: { lastHeardAt: now } });
    if (!updated && onlyIfHeld && notHeld(await prisma.generation.findUnique({ where: { id: generationId }, select: { taskId: true } }))) return null;
    outcome = updated ? "STILL_PENDING" : "LATE_IGNORED";
  } else if (await awaitingResultUrls({ match, snapshot, now })) {
    // Some gateways report SUCCESS before the result is published: a final
    // SUCCESS without a video would be a charged, empty card. Keep polling
    // until the URLs appear or the task is overdue, then take what there is.
    outcome = "STILL_PENDING";
    detail = detail ?? "SUCCESS without result URLs yet";
  } else {
    const succeeded = snapshot.state === "SUCCESS";
    const transitioned = await updateGenerationIf({
      // A real terminal report also replaces a FAILURE that versions before
      // #12 inferred from 404s: that one was a guess, this is the gateway.
      where: { id: generationId, taskId: snapshot.taskId, OR: [{ state: "PENDING" }, INFERRED_FAILURE] },
      data: {
        state: snapshot.state,
        resultUrls: JSON.stringify(succeeded ? snapshot.resultUrls : []),
        resultUrlsDropped: succeeded ? (snapshot.droppedResultUrls ?? 0) : 0,
        // Charged on SUCCESS only; a FAILURE costs 0 whatever the payload says.
        creditsConsumed: succeeded ? snapshot.creditsConsumed : 0,
        errorCode: succeeded ? null : (snapshot.failCode ?? "generation_failed"),
        errorMessage: succeeded ? null : (snapshot.failMessage ?? "The gateway reported that generation failed."),
        gatewayMetadata: serializeMetadata(snapshot.metadata),
        lastHeardAt: now,
        completedAt: now,
      },
    });
    if (transitioned) {
      outcome = "APPLIED";
      // The gateway's balance has changed: the next read asks it again.
      invalidateCreditBalance();
      if (succeeded) requestMediaCopies([generationId]); // [media #18] copy the results into our storage (lib/media/copy-jobs.ts)
    } else {
      const current = await prisma.generation.findUnique({ where: { id: generationId }, select: { state: true, taskId: true } });
      if (notHeld(current)) return null;
      outcome = current?.state === snapshot.state ? "DUPLICATE" : "LATE_IGNORED";
    }
  }

  const deliveryId = await recordDelivery({ generationId, taskId: snapshot.taskId, source, outcome, reportedState: snapshot.state, detail });
  return { outcome, deliveryId };
}

async function awaitingResultUrls({
  match,
  snapshot,
  now,
}: {
  match: { id: string; taskId: string; state: "PENDING" };
  snapshot: TaskSnapshot;
  now: Date;
}): Promise<boolean> {
  if (snapshot.state !== "SUCCESS" || snapshot.resultUrls.length > 0) return false;
  const recent = { gt: new Date(now.getTime() - env.PENDING_OVERDUE_MS) };
  return updateGenerationIf({ where: { ...match, createdAt: recent }, data: { lastHeardAt: now } });
}

function serializeMetadata(metadata: Record<string, unknown>): string | null {
  if (Object.keys(metadata).length === 0) return null;
  const text = JSON.stringify(metadata);
  return Buffer.byteLength(text) <= METADATA_MAX_BYTES ? text : null;
}
