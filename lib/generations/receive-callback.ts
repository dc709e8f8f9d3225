// The gateway's callback, after the route has read the raw body: authenticate
// by token, parse, check the task is ours, then hand it to the single writer.
// Anything incomplete or of an unknown shape is confirmed with a GET first.
import "server-only";
import { isUniqueViolation } from "@/lib/database/errors";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { readCallbackBody } from "@/lib/gateway/callback-payload";
import type { TaskSnapshot } from "@/lib/gateway/task";
import { GatewayError, getTask } from "@/lib/gateway/client";
import type { DeliveryOutcome } from "@/lib/generated/prisma/client";
import { applyTaskSnapshot, applyTaskSnapshotIfHeld } from "./apply-task-snapshot";
import { verifyCallbackToken } from "./callback-token";
import { recordDelivery } from "./delivery-log";
import { tracedGeneration } from "./generation-trace";
import { ADOPTABLE_SUBMIT_FAILURES } from "./submit-failure";
import { updateGenerationIf } from "./store";

/** Gateways send JSON, sometimes labelled text/plain or not at all; anything else is refused. */
const ACCEPTED_TYPES = /^(application\/(?:[\w.+-]*\+)?json|text\/plain)\b/i;

export async function receiveCallback({
  token,
  body,
  contentType,
}: {
  token: string | null;
  body: string;
  contentType: string | null;
}): Promise<{ outcome: DeliveryOutcome }> {
  const generationId = verifyCallbackToken(token, env.WEBHOOK_SECRET);
  if (!generationId) {
    // Unauthenticated: nothing is written, not even a delivery row.
    console.warn("[framehook] callback rejected: missing or invalid token");
    throw new AppError("unauthorized", "Invalid callback token.");
  }

  if (contentType && !ACCEPTED_TYPES.test(contentType)) {
    throw new AppError("unsupported_media_type", "Callbacks must be JSON.");
  }
  // It arrives in a request of its own: its span joins the generation's trace, linked to the submit's.
  return tracedGeneration("generation.callback", { id: generationId, fromRequest: true }, async (span) => {
    const received = await receiveFor({ generationId, body });
    span.set({ "framehook.delivery.outcome": received.outcome });
    return received;
  });
}

/** The authenticated callback of `generationId`. */
async function receiveFor({ generationId, body }: { generationId: string; body: string }): Promise<{ outcome: DeliveryOutcome }> {
  const reading = readCallbackBody(body);
  if (reading.kind === "complete") {
    // The usual case first: the generation holds the task the body names, and
    // one conditional write decides. Anything else is looked into below.
    const applied = await applyTaskSnapshotIfHeld({ generationId, snapshot: reading.snapshot, source: "CALLBACK" });
    if (applied) return applied;
  }

  const generation = await prisma.generation.findUnique({
    where: { id: generationId },
    select: { id: true, taskId: true, state: true, errorCode: true },
  });
  if (!generation) throw new AppError("not_found", "Unknown task.");
  const namedTask = reading.kind === "complete" ? reading.snapshot.taskId : reading.kind === "hint" ? reading.taskId : null;

  if (!generation.taskId) {
    // We never stored the submit's answer (the callback raced it, it timed out,
    // or the app died waiting), yet the gateway started the task.
    // The body only names the task: what is written is what the gateway confirms.
    if (namedTask && mayAdopt(generation)) return adoptTask({ generationId, taskId: namedTask });
    throw new AppError("not_found", "Unknown task.");
  }
  const taskId = generation.taskId;
  const reject = async (code: "bad_request" | "unauthorized", message: string) => {
    await recordDelivery({ generationId, taskId, source: "CALLBACK", outcome: "REJECTED", detail: message });
    return new AppError(code, message);
  };

  if (reading.kind === "malformed") throw await reject("bad_request", `Malformed callback: ${reading.reason}.`);
  if (namedTask !== null && namedTask !== taskId) {
    throw await reject("unauthorized", "Callback token does not match the task it names.");
  }

  if (reading.kind === "complete") {
    return applyTaskSnapshot({ generationId, snapshot: reading.snapshot, source: "CALLBACK" });
  }
  // A hint: ask the gateway for the task itself before writing anything.
  try {
    const snapshot = await getTask({ taskId });
    return applyTaskSnapshot({ generationId, snapshot, source: "CALLBACK", detail: `confirmed by GET (${reading.reason})` });
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    await recordDelivery({ generationId, taskId, source: "CALLBACK", outcome: "ERROR", detail: `could not confirm: ${error.kind}` });
    // Non-2xx: the gateway retries, and polling still has the task.
    throw new AppError("gateway_unavailable", "Could not confirm the task with the gateway; retry later.");
  }
}

/**
 * A generation that never stored a taskId can still own a task: the submit's
 * answer was lost (timeout, cut connection, garbled reply, a crash) or has not
 * been stored yet. Refusals (402, 422, 401, 5xx answers, a connection refused
 * before sending) are final: no task can exist, so nothing may claim them.
 */
const mayAdopt = (g: { state: string; errorCode: string | null }) =>
  g.state === "SUBMITTING" || (g.state === "SUBMIT_FAILED" && ADOPTABLE_SUBMIT_FAILURES.includes(g.errorCode ?? ""));

/**
 * Claims the task a callback names for a generation that never stored its
 * taskId. The token proves the sender had this generation's callback URL, not
 * that the task is real or ours to describe (tokens travel in URLs), so the
 * task is always confirmed with the gateway first (spec §6.4) and only the
 * confirmed snapshot is written. The claim is conditional (taskId still
 * null), so a submit answer arriving at the same moment cannot make a second
 * claim; a task another generation owns is refused (409), never a 500.
 */
async function adoptTask({ generationId, taskId }: { generationId: string; taskId: string }) {
  let snapshot: TaskSnapshot;
  try {
    snapshot = await getTask({ taskId });
  } catch (error) {
    if (error instanceof GatewayError && error.kind === "not_found") throw new AppError("not_found", "Unknown task.");
    if (error instanceof GatewayError) throw new AppError("gateway_unavailable", "Could not confirm the task with the gateway; retry later.");
    throw error;
  }
  const owner = await prisma.generation.findUnique({ where: { taskId }, select: { id: true } });
  if (owner && owner.id !== generationId) throw new AppError("conflict", "This task belongs to another generation.");
  let claimed: boolean;
  try {
    claimed = await updateGenerationIf({
      where: { id: generationId, OR: [{ state: "SUBMITTING" }, { state: "SUBMIT_FAILED", errorCode: { in: ADOPTABLE_SUBMIT_FAILURES } }], AND: [{ taskId: null }] },
      data: { taskId, state: "PENDING", errorCode: null, errorMessage: null, creditsConsumed: null, completedAt: null, lastHeardAt: new Date() },
    });
  } catch (error) {
    // Another generation claimed the task between the check and the update.
    if (isUniqueViolation(error)) throw new AppError("conflict", "This task belongs to another generation.");
    throw error;
  }
  if (!claimed) {
    // The submit's own answer got there first: carry on as a normal callback.
    const current = await prisma.generation.findUnique({ where: { id: generationId }, select: { taskId: true } });
    if (current?.taskId !== taskId) throw new AppError("conflict", "Task not registered yet; retry.");
  }
  return applyTaskSnapshot({ generationId, snapshot, source: "CALLBACK", detail: claimed ? "adopted after confirming with GET: the submit's answer was never stored" : undefined });
}
