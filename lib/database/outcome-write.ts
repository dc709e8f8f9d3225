// The hot write of the single writer, as one unit on every engine: a
// generation's conditional update, the delivery row that records what came of
// it and, on a terminal change, the capture or release of the generation's
// credit hold (lib/credits), with what it collects of credits the owner owes
// (lib/credits/owed.ts), and the ready email it makes due (an outbox row,
// lib/notifications), are stored together or not at all. One statement on PostgreSQL
// (outcome-write-postgres.ts), one short transaction on SQLite
// (outcome-write-sqlite.ts), both without Prisma's per-query cost.
import type { DeliveryOutcome, DeliverySource, GenerationState } from "@/lib/generated/prisma/client";

/** What the write sets besides lastHeardAt and updatedAt (always the write's `now`). */
export type OutcomeChange =
  | { kind: "heard" }
  | {
      kind: "terminal";
      state: "SUCCESS" | "FAILURE";
      /** JSON text, as the column stores it. */
      resultUrls: string;
      creditsConsumed: number | null;
      errorCode: string | null;
      errorMessage: string | null;
      gatewayMetadata: string | null;
      /** Result URLs the gateway named past the kept ones. */
      resultUrlsDropped: number;
    };

export type OutcomeWrite = {
  generationId: string;
  /** The row must hold this task. */
  taskId: string;
  change: OutcomeChange;
  /**
   * The row must be PENDING, or a FAILURE with this errorCode (an outcome the
   * app inferred, which a real report replaces).
   */
  replacesFailureCode?: string;
  /** The row must have been created after this. */
  createdAfter?: Date;
  /**
   * With a terminal change: settles the generation's credit hold in the same
   * write, when the write moved the row and the hold is still open. A capture
   * gives back what the hold did not cost (`charge` whole credits, capped at
   * the hold; null: the hold is the cost); a release gives it all back.
   * `note` is stored with the row; `overNote` instead when the charge is above the hold.
   */
  settlement?: {
    kind: "CAPTURE" | "RELEASE";
    /** The settlement's idempotency key, and the hold's (lib/credits/ledger.ts ledgerKey). */
    key: string;
    holdKey: string;
    charge: number | null;
    note: string;
    overNote: string;
    /** The note of the COLLECT rows that take what the owner owes from what the settlement gives back. */
    collectNote: string;
  };
  /**
   * With a terminal change: when the write moved the row and its owner asked
   * for an email (emailWhenReady, not deleted), a ReadyEmail row for this
   * outcome, due now, given up at `giveUpAt`. Unique per generation and
   * outcome: a second write finds it there.
   */
  readyEmail?: { giveUpAt: Date };
  now: Date;
  delivery: {
    source: DeliverySource;
    reportedState: string;
    detail?: string;
    /** The outcome recorded when the row matched (APPLIED, STILL_PENDING). */
    ifMatched: DeliveryOutcome;
    /**
     * When it did not match: "record" stores DUPLICATE if the row is already
     * in `duplicateOf`, otherwise LATE_IGNORED; `onlyIfHeld` stores nothing
     * when the row does not hold `taskId`. "skip" stores nothing.
     */
    ifNotMatched: { duplicateOf: GenerationState | null; onlyIfHeld: boolean } | "skip";
  };
};

/** The row as the write left it: with what the write set, what the live gallery's event carries. */
export type OutcomeRow = { id: string; state: GenerationState; createdAt: Date; updatedAt: Date; ownerId: string; deletedAt: Date | null; callbackEnabled: boolean };

export type WrittenOutcome = {
  /** The updated row, when it matched. */
  row: OutcomeRow | null;
  /** The delivery stored with it, if any. */
  delivery: { id: number; outcome: DeliveryOutcome } | null;
  /** The credit row that settled the hold, if this write settled it. */
  settled: { kind: "CAPTURE" | "RELEASE"; amount: number; overHold: boolean; collected: number } | null;
  /** Whether this write made a ready email due. */
  readyEmail: boolean;
  /**
   * A capture's write that moved the row and settled nothing, because a
   * release written earlier had given the hold back (a task flagged lost that
   * then succeeded): what that release gave back; null otherwise. Read in the
   * same write, so the receiver makes no second round trip for it.
   */
  releasedBefore: number | null;
};

export type OutcomeWriter = (write: OutcomeWrite) => Promise<WrittenOutcome>;

/** The delivery's detail as stored: the log keeps a line, not a payload. */
export const DELIVERY_DETAIL_MAX_LENGTH = 300;

export const deliveryDetail = (detail: string | undefined) => (detail === undefined ? null : detail.slice(0, DELIVERY_DETAIL_MAX_LENGTH));
