"use server";
// The page's server actions: submitting the form, and what a gallery card can
// do to its generation (retry it, delete it from the gallery, share it or stop). Thin: parse,
// call one domain function, answer a typed state for the client.
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { AppError, toAppError, type ErrorCode } from "@/lib/errors";
import type { Generation } from "@/lib/generations/generation";
import { retryGeneration } from "@/lib/generations/retry";
import { RESULT_TAKES, uploadFromResult, type ResultTake } from "@/lib/uploads/frame-upload";
import { toUploadView, type UploadView } from "@/lib/uploads/receive-upload";
import { findUploads } from "@/lib/uploads/upload-store";
import { UPLOAD_ID_PATTERN } from "@/lib/models/input-schema";
import { hideGeneration } from "@/lib/generations/store";
import type { ShareLink } from "@/lib/sharing/share-link";
import { shareVideo, stopSharing } from "@/lib/sharing/share-video";
import { shareComparison, stopSharingComparison } from "@/lib/sharing/share-comparison";
import { submitGeneration } from "@/lib/generations/submit";
import { setBatchPick } from "@/lib/batches/batch-store";
import { submitBatch } from "@/lib/batches/submit-batch";
import { compareFieldName, readCompareForm } from "@/lib/batches/compare-form";
import { visitorKey } from "@/lib/rate-limit";
import { assertMayCreate, getViewer, type Viewer } from "@/lib/viewer/get-viewer";

export type SubmitState = {
  status: "idle" | "success" | "error";
  /** A refusal's code, e.g. insufficient_credits, which the form answers with a link to buy more. */
  code?: ErrorCode;
  message?: string;
  fieldErrors?: Record<string, string[]>;
  generation?: Generation;
};

export type CardActionState = { status: "success" | "error"; message: string; generation?: Generation; share?: ShareLink | null };

export type ContinueActionState = { status: "success" | "error"; message: string; upload?: UploadView; model?: string; field?: string };

const INPUT_PREFIX = "input.";
const generationId = z.string().min(1).max(100);

export async function submitGenerationAction(_previous: SubmitState, formData: FormData): Promise<SubmitState> {
  const input: Record<string, string> = {};
  for (const [key, value] of formData) {
    if (key.startsWith(INPUT_PREFIX) && typeof value === "string") input[key.slice(INPUT_PREFIX.length)] = value;
  }
  const key = formData.get("idempotencyKey");
  // The box is on the form only for a signed-in person ("emailChoice" says it was there): unticked is a choice too.
  const emailWhenReady = formData.has("emailChoice") ? formData.get("emailWhenReady") === "on" : undefined;
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to create videos." };
  try {
    const { generation, error } = await submitGeneration({
      body: { model: formData.get("model"), input, emailWhenReady },
      idempotencyKey: typeof key === "string" && key ? key : undefined,
      visitor: visitorKey(await headers()),
      viewer,
    });
    if (error) return { status: "error", code: error.code, message: error.message, generation };
    return { status: "success", message: "Submitted. Your video will appear in the gallery.", generation };
  } catch (error) {
    // An outage of the database reads "briefly unavailable", anything unexpected "something went wrong"; the detail is logged.
    const { code, message, fields } = toAppError(error);
    return { status: "error", code, message, fieldErrors: fields };
  }
}

export type CompareState = { status: "idle" | "error"; code?: ErrorCode; message?: string; fieldErrors?: Record<string, string[]> };

/** The compare form: one batch, then its comparison view. Field errors come back under the form's own names. */
export async function submitBatchAction(_previous: CompareState, formData: FormData): Promise<CompareState> {
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to create videos." };
  const { body, models } = readCompareForm(formData);
  const key = formData.get("idempotencyKey");
  let batchId: string;
  try {
    const { batch } = await submitBatch({
      body,
      idempotencyKey: typeof key === "string" && key ? key : undefined,
      visitor: visitorKey(await headers()),
      viewer,
    });
    batchId = batch.id;
  } catch (error) {
    const { code, message, fields } = toAppError(error);
    const fieldErrors = fields && Object.fromEntries(Object.entries(fields).map(([name, messages]) => [compareFieldName(name, models), messages]));
    return { status: "error", code, message, fieldErrors };
  }
  redirect(`/compare/${batchId}`);
}

/** Marks (or, with null, clears) the owner's pick in a comparison. */
export async function pickBatchVideoAction(batchId: unknown, pickId: unknown): Promise<{ status: "success" | "error"; message: string }> {
  const ids = z.object({ batchId: generationId, pickId: generationId.nullable() }).safeParse({ batchId, pickId });
  if (!ids.success) return { status: "error", message: "No such comparison." };
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to pick." };
  const picked = await setBatchPick({ id: ids.data.batchId, ownerId: viewer.id, pickId: ids.data.pickId });
  return picked ? { status: "success", message: ids.data.pickId ? "Marked as your pick." : "Pick cleared." } : { status: "error", message: "No such comparison, or that video is not in it." };
}

/** Shares the viewer's own comparison under a new public link (any earlier link stops working). */
export async function shareBatchAction(batchId: unknown, showPrompt: unknown): Promise<CardActionState> {
  return onOwnRow(batchId, COMPARISON("share a comparison"), async (id, viewer) => {
    const outcome = await shareComparison({ id, ownerId: viewer.id, showPrompt: showPrompt !== false });
    if (outcome.status === "not_found") return { status: "error", message: "Only your own comparisons can be shared." };
    if (outcome.status === "not_shareable") return { status: "error", message: outcome.message };
    return { status: "success", message: "Public link made.", share: outcome.link };
  });
}

export async function stopSharingBatchAction(batchId: unknown): Promise<CardActionState> {
  return onOwnRow(batchId, COMPARISON("stop sharing a comparison"), async (id, viewer) => {
    if ((await stopSharingComparison({ id, ownerId: viewer.id })) === "not_found") return { status: "error", message: "Only your own comparisons can be shared." };
    return { status: "success", message: "Stopped sharing: the link no longer opens.", share: null };
  });
}

/** A comparison's id checked and the viewer read, as for a card's actions. */

export async function retryGenerationAction(id: unknown): Promise<CardActionState> {
  return onOwnRow(id, { what: "retry", signedOut: "Sign in to create videos." }, async (generationId, viewer) => {
    const { generation, error } = await retryGeneration({ id: generationId, visitor: visitorKey(await headers()), viewer });
    if (error) return { status: "error", message: error.message, generation };
    return { status: "success", message: "Retrying: a new generation was submitted.", generation };
  });
}

export async function deleteGenerationAction(id: unknown): Promise<CardActionState> {
  return onOwnRow(id, { what: "delete", signedOut: "Sign in to manage videos." }, async (generationId, viewer) => {
    const outcome = await hideGeneration({ id: generationId, ownerId: viewer.id });
    if (outcome === "not_found") return { status: "error", message: "Only your own videos can be deleted." };
    return { status: "success", message: "Deleted from the gallery." };
  });
}

/** Shares the viewer's own Ready video under a new public link (any earlier link stops working). */
export async function shareVideoAction(id: unknown, showPrompt: unknown): Promise<CardActionState> {
  return onOwnRow(id, { what: "share", signedOut: "Sign in to manage videos." }, async (generationId, viewer) => {
    const outcome = await shareVideo({ id: generationId, ownerId: viewer.id, showPrompt: showPrompt !== false });
    if (outcome.status === "not_found") return { status: "error", message: "Only your own videos can be shared." };
    if (outcome.status === "not_shareable") return { status: "error", message: outcome.message };
    return { status: "success", message: "Public link made.", share: outcome.link };
  });
}

export async function stopSharingAction(id: unknown): Promise<CardActionState> {
  return onOwnRow(id, { what: "stop sharing", signedOut: "Sign in to manage videos." }, async (generationId, viewer) => {
    if ((await stopSharing({ id: generationId, ownerId: viewer.id })) === "not_found") return { status: "error", message: "Only your own videos can be shared." };
    return { status: "success", message: "Stopped sharing: the link no longer opens.", share: null };
  });
}

/**
 * Continue from the viewer's own stored result: its first or last frame, or
 * the video itself, becomes an upload for `target` (the form's picker names
 * its field), or by default for the model a card's button continues into.
 */
export async function continueFromResultAction(id: unknown, take: unknown, target?: unknown): Promise<ContinueActionState> {
  const parsed = generationId.safeParse(id);
  const what = z.enum(RESULT_TAKES).safeParse(take);
  const into = z.object({ model: z.string().max(200), field: z.string().max(200) }).optional().safeParse(target);
  if (!parsed.success || !what.success || !into.success) return { status: "error", message: "No such generation." };
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to create videos." };
  try {
    assertMayCreate(viewer);
    const result = await uploadFromResult({ generationId: parsed.data, take: what.data, ownerId: viewer.id, target: into.data });
    return { status: "success", message: into.data ? "Added from your gallery." : CONTINUED[what.data], ...result };
  } catch (error) {
    if (error instanceof AppError) return { status: "error", message: error.message };
    console.error("[framehook] continue from a result failed", error);
    return { status: "error", message: "Something went wrong. Please try again." };
  }
}

/**
 * The viewer's uploads among `ids` that are still kept: a remix puts them
 * back in the form. Another visitor's, or one past keeping, is left out.
 */
export async function findKeptUploadsAction(ids: unknown): Promise<UploadView[]> {
  const parsed = z.array(z.string().regex(UPLOAD_ID_PATTERN)).max(20).safeParse(ids);
  if (!parsed.success || parsed.data.length === 0) return [];
  const viewer = await getViewer();
  if (!viewer) return [];
  return (await findUploads({ ids: parsed.data, ownerId: viewer.id })).map(toUploadView);
}

const CONTINUED: Record<ResultTake, string> = {
  "first-frame": "The first frame is now the first frame of a new video.",
  "last-frame": "The last frame is now the first frame of a new video.",
  video: "The video is now a reference video of a new one.",
};

/** A comparison's actions: the card actions' preamble with its own words. */
const COMPARISON = (what: string) => ({ what, signedOut: "Sign in to manage comparisons.", unknown: "No such comparison." });

/** What every card action (a generation's or a comparison's) does first: a well-formed id, a signed-in viewer; and an unexpected error as a message. */
async function onOwnRow(
  id: unknown,
  { what, signedOut, unknown = "No such generation." }: { what: string; signedOut: string; unknown?: string },
  act: (id: string, viewer: Viewer) => Promise<CardActionState>,
): Promise<CardActionState> {
  const parsed = generationId.safeParse(id);
  if (!parsed.success) return { status: "error", message: unknown };
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: signedOut };
  try {
    return await act(parsed.data, viewer);
  } catch (error) {
    return failure(error, what);
  }
}

function failure(error: unknown, what: string): CardActionState {
  if (!(error instanceof AppError)) console.error(`[framehook] ${what} failed`);
  return { status: "error", message: toAppError(error).message };
}
