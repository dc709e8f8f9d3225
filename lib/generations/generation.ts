// The Generation as the app's routes and pages see it, and its states.
import type { Generation as GenerationRow, GenerationState, MediaCopy } from "@/lib/generated/prisma/client";
import { env } from "@/lib/env";
import { isHttpUrl } from "@/lib/gateway/task";
import { isRecord, safeJsonParse } from "@/lib/http/json";
import { toStoredMedia, type StoredMedia } from "@/lib/copies/media-copy";
import { shareLinkOf, type ShareLink } from "@/lib/sharing/share-link";

export type { GenerationState };
export const GENERATION_STATES = ["SUBMITTING", "PENDING", "SUCCESS", "FAILURE", "SUBMIT_FAILED"] as const satisfies readonly GenerationState[];
export const TERMINAL_STATES: readonly GenerationState[] = ["SUCCESS", "FAILURE", "SUBMIT_FAILED"];
export const isTerminal = (state: GenerationState) => TERMINAL_STATES.includes(state);

export type Generation = {
  id: string;
  taskId: string | null;
  model: string;
  state: GenerationState;
  prompt: string;
  input: Record<string, unknown>;
  resultUrls: string[];
  /** Result URLs the gateway named past the ones kept (MAX_RESULT_URLS): never stored or copied. */
  resultUrlsDropped: number;
  /** The app's own copies of the results (lib/copies), by position in resultUrls. */
  storedMedia: StoredMedia[];
  /** The gateway's charge for the task, in the gateway's credits: the operator's cost, never what the user paid. */
  creditsConsumed: number | null;
  /** What it takes from its owner's credits; absent where that was not read (a submission's own answer, another owner's card). */
  charge?: CreditCharge | null;
  error: { code: string; message: string } | null;
  /** False when callbacks were disabled for this task and polling carries it. */
  callbackEnabled: boolean;
  /** PENDING far longer than usual: flagged, never silently failed. */
  overdue: boolean;
  /** Since when the gateway has answered "no such task" (yet): a flag, never a failure. */
  notFoundSince: string | null;
  /** The gateway has not known the task for TASK_LOST_AFTER_MS: shown as lost, still open to a real report. */
  lost: boolean;
  gatewayMetadata: Record<string, unknown> | null;
  /** Another owner's, shown by the showcase (GALLERY_SCOPE=shared): the viewer may watch and remix it, not retry, delete or continue it. */
  showcase?: true;
  /** Its public link while its owner shares it (lib/sharing); null otherwise, and always for anyone but the owner. */
  share: ShareLink | null;
  /** The comparison it was submitted in (lib/batches), if any; null for anyone but the owner. */
  batchId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
};

/**
 * A generation's charge in the kit's credits (lib/credits): what its
 * submission held while it is in progress, what was captured of that on
 * success (never more), or the hold given back (a failure). Null: it holds
 * none (made before credits existed, or none was recorded).
 */
export type CreditCharge = { status: "held" | "captured" | "released"; credits: number };

/** `charge`: read beside the row (lib/generations/charges.ts); left out when not given. */
export function toGeneration(row: GenerationRow & { mediaCopies?: MediaCopy[] }, now = Date.now(), charge?: CreditCharge | null): Generation {
  const input = safeJsonParse(row.input);
  const metadata = row.gatewayMetadata ? safeJsonParse(row.gatewayMetadata) : null;
  const { storedMedia, ...card } = toLiveCard(row, now);
  return {
    id: row.id,
    taskId: row.taskId,
    model: row.model,
    prompt: row.prompt,
    input: isRecord(input) ? input : {},
    ...card,
    storedMedia: storedMedia ?? [],
    gatewayMetadata: isRecord(metadata) ? metadata : null,
    share: shareLinkOf(row),
    batchId: row.batchId,
    ...(charge !== undefined ? { charge } : {}),
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * What a card shows that can change after it is created: what a live event
 * carries, so that an open tab renders the change without a read. Never the
 * inputs, the task id or the gateway's metadata (a showcase viewer receives
 * it too); `storedMedia` only when the publisher read the copies, `charge`
 * only when the write changed it (the owner's alone: visibility.ts).
 */
export type LiveCard = Pick<
  Generation,
  "state" | "updatedAt" | "completedAt" | "creditsConsumed" | "charge" | "error" | "resultUrls" | "resultUrlsDropped" | "callbackEnabled" | "overdue" | "notFoundSince" | "lost"
> & { storedMedia?: StoredMedia[] };

export type LiveCardRow = Pick<
  GenerationRow,
  "state" | "createdAt" | "updatedAt" | "completedAt" | "creditsConsumed" | "errorCode" | "errorMessage" | "resultUrls" | "resultUrlsDropped" | "callbackEnabled" | "notFoundSince"
> & { mediaCopies?: MediaCopy[] };

export function toLiveCard(row: LiveCardRow, now = Date.now()): LiveCard {
  const urls = safeJsonParse(row.resultUrls);
  return {
    state: row.state,
    // Re-checked on the way out: only http(s) URLs ever reach a player or a link.
    resultUrls: Array.isArray(urls) ? urls.filter((u): u is string => typeof u === "string" && isHttpUrl(u)) : [],
    resultUrlsDropped: row.resultUrlsDropped,
    ...(row.mediaCopies ? { storedMedia: row.mediaCopies.map(toStoredMedia).sort((a, b) => a.position - b.position) } : {}),
    creditsConsumed: row.creditsConsumed,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
    callbackEnabled: row.callbackEnabled,
    overdue: (row.state === "PENDING" || row.state === "SUBMITTING") && now - row.createdAt.getTime() > env.PENDING_OVERDUE_MS,
    notFoundSince: row.state === "PENDING" ? (row.notFoundSince?.toISOString() ?? null) : null,
    lost: row.state === "PENDING" && row.notFoundSince !== null && isLost(row.notFoundSince, now),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/** The gateway has not known the task for TASK_LOST_AFTER_MS: shown as lost, still polled, still completable. */
export function isLost(notFoundSince: Date, now = Date.now()): boolean {
  return now - notFoundSince.getTime() >= env.TASK_LOST_AFTER_MS;
}
