// Submitting a generation: record it, send it to the gateway once, and keep
// an honest outcome (PENDING with a taskId, or SUBMIT_FAILED with a reason).
import "server-only";
import { prisma } from "@/lib/db";
import { AppError, type ErrorCode } from "@/lib/errors";
import { GatewayError, submitTask } from "@/lib/gateway/client";
import type { ModelSpec } from "@/lib/models/catalog";
import type { GenerationInput } from "@/lib/models/input-schema";
import { estimateCredits } from "@/lib/spend-limit";
import { callbacksReachable, callbackUrlFor } from "./callback-url";
import { searchText } from "./search-text";
import { toGeneration, type Generation } from "./generation";
import { insertGeneration, updateGenerationIf } from "./store";

/** Retries only where the request certainly did not start a task, or the gateway asked for one. */
const MAX_ATTEMPTS = 3;
const MAX_RETRY_WAIT_MS = 5_000;

export type SubmitResult = { generation: Generation; error?: AppError };

/** How long an Idempotency-Key answers for its first request; after that it may be used afresh. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

export async function submitGeneration({
  model,
  input,
  idempotency,
  ownerId,
  clientKey,
}: {
  model: ModelSpec;
  input: GenerationInput;
  /** The owner-scoped key and the hash of the request it came with (see createGeneration). */
  idempotency?: { key: string; requestHash: string };
  /** The viewer it belongs to (lib/viewer/get-viewer.ts). */
  ownerId: string;
  /** An anonymous submitter's address key: the address spending cap counts it. */
  clientKey?: string;
}): Promise<SubmitResult> {
  const { prompt, ...rest } = input;
  let row;
  try {
    // The spending caps (owner, address, total) refuse here, before the gateway is asked.
    const costEstimate = estimateCredits(model, typeof input.duration === "number" ? input.duration : undefined);
    row = await insertGeneration({
      model: model.id,
      prompt,
      input: JSON.stringify(rest),
      idempotencyKey: idempotency?.key,
      requestHash: idempotency?.requestHash,
      // Stored from the start, so that a failed or abandoned submission says what will really happen.
      callbackEnabled: callbacksReachable(),
      ownerId,
      clientKey,
      costEstimate,
      promptSearch: searchText(prompt), // feeds the gallery's search
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    // Two concurrent submissions of the same form: the second finds the first.
    const replay = idempotency ? await replaySubmission(idempotency) : undefined;
    if (replay) return replay;
    // The key's first holder expired and was released between the check and this insert.
    if (idempotency) throw new AppError("conflict", "This Idempotency-Key is being reused right now; try again in a moment.");
    throw error;
  }

  const webhookUrl = callbackUrlFor(row.id);
  try {
    const { taskId } = await sendOnce({ model: model.id, input, webhookUrl });
    const now = new Date();
    // Conditional: a callback may already have claimed the task (see adoptTask).
    await updateGenerationIf({
      where: { id: row.id, state: "SUBMITTING", AND: [{ taskId: null }] },
      data: { taskId, state: "PENDING", callbackEnabled: webhookUrl !== undefined, lastHeardAt: now },
    });
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const failure = describeSubmitFailure(error, { followable: webhookUrl !== undefined });
    await updateGenerationIf({
      where: { id: row.id, state: "SUBMITTING" },
      data: {
        state: "SUBMIT_FAILED",
        creditsConsumed: 0,
        // The gateway's reason. Provisional where the request may have reached
        // the gateway: if it started the task anyway, the task's callback
        // claims this generation (receive-callback.ts).
        errorCode: storedCode(error),
        errorMessage: failure.message,
        callbackEnabled: webhookUrl !== undefined,
        completedAt: new Date(),
      },
    });
    const generation = toGeneration(await prisma.generation.findUniqueOrThrow({ where: { id: row.id } }));
    return { generation, error: failure };
  }
  return { generation: toGeneration(await prisma.generation.findUniqueOrThrow({ where: { id: row.id } })) };
}

const REPLAYED_ERRORS: Record<string, ErrorCode> = {
  submit_insufficient_credits: "insufficient_credits",
  submit_rate_limited: "rate_limited",
  submit_invalid_input: "invalid_input",
};

/**
 * The answer to a submission repeated with the same idempotency key (Stripe's
 * and the IETF draft's rules): the generation it made, with the same refusal
 * if it was refused; 409 while the first request is still with the gateway;
 * 422 if the key comes with a different request. Undefined for a new key, or
 * for one older than IDEMPOTENCY_KEY_TTL_MS, which is released for reuse.
 */
export async function replaySubmission({ key, requestHash }: { key: string; requestHash: string }): Promise<SubmitResult | undefined> {
  const existing = await prisma.generation.findUnique({ where: { idempotencyKey: key } });
  if (!existing) return undefined;
  if (Date.now() - existing.createdAt.getTime() > IDEMPOTENCY_KEY_TTL_MS) {
    await updateGenerationIf({ where: { id: existing.id, idempotencyKey: key }, data: { idempotencyKey: null } });
    return undefined;
  }
  if (existing.requestHash !== requestHash) {
    throw new AppError(
      "idempotency_key_reused",
      "This Idempotency-Key was already used for a different request. Send a new key with each new submission.",
    );
  }
  if (existing.state === "SUBMITTING") throw new AppError("conflict", "This submission is still being sent to the gateway; try again in a moment.");
  const generation = toGeneration(existing);
  if (existing.state !== "SUBMIT_FAILED") return { generation };
  const code = REPLAYED_ERRORS[existing.errorCode ?? ""] ?? "gateway_unavailable";
  return { generation, error: new AppError(code, existing.errorMessage ?? "The gateway refused this submission.") };
}

async function sendOnce(request: Parameters<typeof submitTask>[0]) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await submitTask(request);
    } catch (error) {
      if (!(error instanceof GatewayError) || attempt >= MAX_ATTEMPTS || !isSafeToRetry(error)) throw error;
      await sleep(Math.min(error.options.retryAfterMs ?? 250 * 2 ** attempt, MAX_RETRY_WAIT_MS));
    }
  }
}

function isSafeToRetry(error: GatewayError): boolean {
  if (!error.options.mayHaveReachedGateway) return true;
  // The gateway refused before starting anything and told us when to come back.
  const asked = error.options.retryAfterMs !== undefined && error.options.retryAfterMs <= MAX_RETRY_WAIT_MS;
  return asked && (error.options.status === 429 || error.options.status === 503);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the user is told; the precise cause goes to the log. */
export function describeSubmitFailure(error: GatewayError, { followable }: { followable: boolean }): AppError {
  // Whether a task the gateway started anyway can still reach this generation:
  // only through its callback, so not when callbacks are off.
  const ifStarted = followable
    ? "if it started the task anyway, the result will appear here."
    : "if it started the task anyway, it cannot be followed here without callbacks: check the gateway's dashboard before trying again.";
  const fail = (code: ErrorCode, message: string, headers?: Record<string, string>) =>
    new AppError(code, message, undefined, headers);
  switch (error.kind) {
    case "unauthorized":
      console.error(`[framehook] the gateway rejected GATEWAY_API_KEY (HTTP ${error.options.status}); check the key's value and account.`);
      return fail("gateway_unavailable", "The video service is misconfigured. Nothing was charged; the operator has been notified.");
    case "insufficient_credits":
      return fail("insufficient_credits", "Not enough credits for this generation. Top up the gateway balance, then try again. Nothing was charged.");
    case "invalid_input":
      return fail("invalid_input", `The gateway rejected the input: ${error.message}. Nothing was charged.`);
    case "rate_limited": {
      const seconds = Math.ceil((error.options.retryAfterMs ?? 5000) / 1000);
      return fail("rate_limited", `The gateway is throttling requests. Try again in ${seconds} s. Nothing was charged.`, {
        "Retry-After": String(seconds),
      });
    }
    case "timeout":
      console.warn("[framehook] gateway submit timed out after sending; not retried, to avoid a duplicate task");
      return fail(
        "gateway_unavailable",
        `The gateway did not answer in time. It was not asked twice, to avoid a duplicate task; ${ifStarted}`,
      );
    default:
      console.warn(`[framehook] gateway submit failed: ${error.kind}: ${error.message}`);
      // No answer (a connection cut after sending) or a garbled one: the task may exist.
      if (error.options.mayHaveReachedGateway && error.options.status === undefined) {
        return fail(
          "gateway_unavailable",
          `The gateway did not answer properly. It was not asked twice, to avoid a duplicate task; ${ifStarted}`,
        );
      }
      return fail("gateway_unavailable", "The video gateway is unavailable right now. Nothing was charged; try again in a moment.");
  }
}

/**
 * `submit_<kind>`, with a connection refused (never sent: `submit_unreachable`)
 * told apart from one cut after sending (`submit_no_answer`): only the latter,
 * a timeout, a garbled answer or a crash may have started a task
 * (ADOPTABLE_SUBMIT_FAILURES in receive-callback.ts).
 */
function storedCode(error: GatewayError): string {
  if (error.kind !== "unavailable") return `submit_${error.kind}`;
  if (!error.options.mayHaveReachedGateway) return "submit_unreachable";
  return error.options.status === undefined ? "submit_no_answer" : "submit_unavailable";
}
