// The single writer of task outcomes. Callbacks, browser-driven refreshes, the
// cron and adoption all end here. Each report is one outcome write
// (lib/database/outcome-write.ts): the conditional update (WHERE state =
// 'PENDING'), so N concurrent duplicates give one transition, and the
// delivery row recording it, stored together or not at all; a terminal
// transition also captures (SUCCESS) or releases (FAILURE) the generation's
// credit hold in that same write, and makes the owner's ready email due when
// they asked for one (sent after the commit: lib/notifications).
import "server-only";
import { invalidateCreditBalance } from "@/lib/gateway/balance";
import { ledgerKey } from "@/lib/credits/ledger";
import { creditPricing } from "@/lib/credits/pricing";
import { gatewayChargeCredits } from "@/lib/credits/prices";
import type { OutcomeChange, OutcomeWrite, WrittenOutcome } from "@/lib/database/outcome-write";
import { writeOutcome } from "@/lib/db";
import { env } from "@/lib/env";
import { requestMediaCopies } from "@/lib/copies/copy-jobs";
import { requestReadyEmails } from "@/lib/notifications/send-ready-emails";
import type { DeliveryOutcome, DeliverySource } from "@/lib/generated/prisma/client";
import type { TaskSnapshot } from "@/lib/gateway/task";
import { traced } from "@/lib/traces/tracing";
import { chargeSettledBy, readCreditCharge } from "./charges";
import type { CreditCharge } from "./generation";
import { announceOutcome } from "./store";

/** What older versions wrote when the gateway answered 404: a guess, which a real terminal report replaces. */
const INFERRED_FAILURE_CODE = "task_not_found";

export type ApplyResult = { outcome: DeliveryOutcome; deliveryId: number };

type ApplyArgs = { generationId: string; snapshot: TaskSnapshot; source: DeliverySource; detail?: string };

export async function applyTaskSnapshot(args: ApplyArgs): Promise<ApplyResult> {
  const applied = await apply(args, { onlyIfHeld: false });
  if (!applied) throw new Error(`Generation ${args.generationId} not found`);
  return applied;
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

function apply(args: ApplyArgs, options: { onlyIfHeld: boolean }): Promise<ApplyResult | null> {
  const attributes = { "framehook.generation.id": args.generationId, "framehook.delivery.source": args.source, "framehook.task.state": args.snapshot.state };
  return traced("generation.outcome_write", { attributes }, async (span) => {
    const applied = await write(args, options);
    span.set({ "framehook.delivery.outcome": applied?.outcome ?? "NOT_HELD" });
    return applied;
  });
}

async function write({ generationId, snapshot, source, detail }: ApplyArgs, { onlyIfHeld }: { onlyIfHeld: boolean }): Promise<ApplyResult | null> {
  const now = new Date();
  const report = { generationId, taskId: snapshot.taskId, now };
  const delivery = { source, reportedState: snapshot.state, detail };

  if (snapshot.state === "PENDING") {
    const { delivery: stored } = await writeOutcome({
      ...report,
      change: { kind: "heard" },
      delivery: { ...delivery, ifMatched: "STILL_PENDING", ifNotMatched: { duplicateOf: null, onlyIfHeld } },
    });
    return stored && { outcome: stored.outcome, deliveryId: stored.id };
  }

  if (snapshot.state === "SUCCESS" && snapshot.resultUrls.length === 0) {
    // Some gateways report SUCCESS before the result is published: a final
    // SUCCESS without a video would be a charged, empty card. Keep polling
    // until the URLs appear or the task is overdue, then take what there is.
    const { delivery: stored } = await writeOutcome({
      ...report,
      change: { kind: "heard" },
      createdAfter: new Date(now.getTime() - env.PENDING_OVERDUE_MS),
      delivery: { ...delivery, detail: detail ?? "SUCCESS without result URLs yet", ifMatched: "STILL_PENDING", ifNotMatched: "skip" },
    });
    if (stored) return { outcome: stored.outcome, deliveryId: stored.id };
  }

  const change = terminalChange(snapshot, snapshot.state);
  const settlement = settlementFor(generationId, snapshot);
  const written = await writeOutcome({
    ...report,
    change,
    replacesFailureCode: INFERRED_FAILURE_CODE,
    settlement,
    readyEmail: { giveUpAt: new Date(now.getTime() + env.READY_EMAIL_GIVE_UP_MS) },
    delivery: { ...delivery, ifMatched: "APPLIED", ifNotMatched: { duplicateOf: snapshot.state, onlyIfHeld } },
  });
  if (written.row) {
    // The push first: between the write and the open galleries, only what the card shows (its charge).
    const row = written.row;
    const free = snapshot.state === "SUCCESS" && !written.settled ? warnIfFree(generationId, written.releasedBefore) : undefined;
    await chargeSettled(generationId, written.settled, settlement?.charge ?? null)
      .then((charge) => announceOutcome(row, change, charge ?? free))
      .catch((error: unknown) => {
        // Stored either way; open galleries catch up by their safety-net poll.
        console.warn(`[framehook] could not announce the change of ${generationId}:`, error);
      });
    // The gateway's balance has changed: the next read asks it again.
    invalidateCreditBalance();
    if (snapshot.state === "SUCCESS") requestMediaCopies([generationId]);
  }
  if (written.readyEmail) requestReadyEmails();
  if (written.settled?.overHold) {
    console.warn(
      `[framehook] generation ${generationId}: the gateway charged ${snapshot.creditsConsumed}, above the hold of its estimate; the user was charged the hold (the difference is the operator's)`,
    );
  }
  return written.delivery && { outcome: written.delivery.outcome, deliveryId: written.delivery.id };
}

/**
 * The card's charge after the write settled the hold, from what the write
 * returned; read only for a capture at the hold, whose size it does not return.
 */
async function chargeSettled(generationId: string, settled: WrittenOutcome["settled"], charge: number | null): Promise<CreditCharge | undefined> {
  if (!settled) return undefined;
  return chargeSettledBy(settled, charge) ?? (await readCreditCharge(generationId)) ?? undefined;
}

/**
 * A SUCCESS that settled nothing: its hold had been given back (a task
 * flagged lost, or one that claimed its failed submission after the cron
 * stopped waiting), so the result is free to its owner. The operator is told;
 * the card's charge is that release (undefined: it held nothing).
 */
function warnIfFree(generationId: string, released: number | null): CreditCharge | undefined {
  if (released === null) return undefined;
  console.warn(
    `[framehook] generation ${generationId}: a task whose hold of ${released} credits had been given back (lost, or claimed late) succeeded; the result is free to its owner (the gateway's charge is the operator's)`,
  );
  return { status: "released", credits: released };
}

/** The hold's capture at the gateway's figure priced in credits, or its release. */
function settlementFor(generationId: string, snapshot: TaskSnapshot): OutcomeWrite["settlement"] {
  const holdKey = ledgerKey.hold(generationId);
  if (snapshot.state !== "SUCCESS") {
    return { kind: "RELEASE", key: ledgerKey.release(generationId), holdKey, charge: null, note: `task ${snapshot.state.toLowerCase()}`, overNote: "", collectNote: "a released hold" };
  }
  const consumed = snapshot.creditsConsumed !== null && Number.isFinite(snapshot.creditsConsumed) ? snapshot.creditsConsumed : null;
  // Bounded before it reaches SQL (a 32-bit column on PostgreSQL); the write caps it at the hold.
  const charge = gatewayChargeCredits(consumed, creditPricing());
  const reported = consumed === null ? "the gateway did not say what it charged: the hold" : `the gateway charged ${consumed} (${charge} credits)`;
  return {
    kind: "CAPTURE",
    key: ledgerKey.capture(generationId),
    holdKey,
    charge,
    note: reported,
    overNote: `${reported}, above the hold: captured at the hold`,
    collectNote: "a finished video's unused hold",
  };
}

function terminalChange(snapshot: TaskSnapshot, state: "SUCCESS" | "FAILURE"): Extract<OutcomeChange, { kind: "terminal" }> {
  const succeeded = state === "SUCCESS";
  return {
    kind: "terminal",
    state,
    resultUrls: JSON.stringify(succeeded ? snapshot.resultUrls : []),
    resultUrlsDropped: succeeded ? (snapshot.droppedResultUrls ?? 0) : 0,
    // Charged on SUCCESS only; a FAILURE costs 0 whatever the payload says.
    creditsConsumed: succeeded ? snapshot.creditsConsumed : 0,
    errorCode: succeeded ? null : (snapshot.failCode ?? "generation_failed"),
    errorMessage: succeeded ? null : (snapshot.failMessage ?? "The gateway reported that generation failed."),
    gatewayMetadata: serializeMetadata(snapshot.metadata),
  };
}

/** The snapshot's metadata is already bounded in depth and size (lib/gateway/task.ts). */
function serializeMetadata(metadata: Record<string, unknown>): string | null {
  return Object.keys(metadata).length === 0 ? null : JSON.stringify(metadata);
}
