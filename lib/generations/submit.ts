// Submitting a generation, shared by the server action and POST
// /api/generations: parse → idempotency → rate limit → media inputs → insert
// → send → record, keeping an honest outcome (PENDING with a taskId, or SUBMIT_FAILED
// with a reason). Idempotency and the failure wording sit beside it.
import "server-only";
import { creditsEnabled, holdFor } from "@/lib/credits/pricing";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { GatewayError, submitTask } from "@/lib/gateway/client";
import { parseGenerationRequest } from "@/lib/models/input-schema";
import type { ModelSpec } from "@/lib/models/catalog";
import { hitRateLimit } from "@/lib/rate-limit";
import { estimateCredits } from "@/lib/generations/spend-limit";
import { assertMayCreate, type Viewer } from "@/lib/viewer/get-viewer";
import { UploadsGoneError } from "@/lib/uploads/upload-store";
import { currentTraceparent, traced, type SpanHandle } from "@/lib/traces/tracing";
import { callbacksReachable, callbackUrlFor } from "./callback-url";
import { readCreditCharge } from "./charges";
import { toGeneration, type Generation } from "./generation";
import { idempotencyFor, replaySubmission } from "./idempotency";
import { generationAttributes } from "./generation-trace";
import { checkMediaInputs, gatewayInputOf, goneUploadsError } from "./media-inputs";
import { searchText } from "./search-text";
import { chooseReadyEmails, readyEmailsChosen } from "@/lib/notifications/email-settings";
import { failSubmission, insertGeneration, updateGenerationIf } from "./store";
import { describeSubmitFailure, storedCode } from "./submit-failure";

/** Retries only where the request certainly did not start a task, or the gateway asked for one. */
const MAX_ATTEMPTS = 3;
const MAX_RETRY_WAIT_MS = 5_000;

export type SubmitResult = { generation: Generation; error?: AppError };

type SubmitArgs = {
  body: unknown;
  idempotencyKey?: string;
  /** The client's address as a key (visitorKey): the rate limit's, the address spending cap's and the welcome grant's bound. */
  visitor: string;
  /** Whom the generation will belong to; idempotency keys are scoped to them. */
  viewer: Viewer;
};

/** The generation's trace starts here (when traces are on): its row keeps this span's context for the steps that follow. */
export function submitGeneration(args: SubmitArgs): Promise<SubmitResult> {
  return traced("generation.submit", { attributes: { "framehook.owner.id": args.viewer.id } }, async (span) => {
    const result = await submit(args, span);
    span.set({ ...generationAttributes({ id: result.generation.id }), "framehook.generation.state": result.generation.state });
    return result;
  });
}

async function submit({ body, idempotencyKey, visitor, viewer }: SubmitArgs, span: SpanHandle): Promise<SubmitResult> {
  assertMayCreate(viewer);
  const ownerId = viewer.id;
  const parsed = parseGenerationRequest(body);
  if (!parsed.ok) throw new AppError("invalid_input", "Check the highlighted fields.", parsed.fieldErrors);
  const { model, input } = parsed;
  // Only an account can be emailed; its choice here becomes its default (a guest's is ignored).
  const emailWhenReady = viewer.account ? await readyEmailChoice({ userId: viewer.account.userId, chosen: parsed.emailWhenReady }) : false;
  span.set({ "framehook.model": model.id });

  const idempotency = idempotencyFor({ idempotencyKey, ownerId, model: model.id, input });
  // A repeated submission answers as the first one did, and costs no quota.
  const replay = idempotency ? await replaySubmission(idempotency) : undefined;
  if (replay) return replay;

  const limit = await hitRateLimit({
    key: `submit:${visitor}`,
    limit: env.SUBMIT_RATE_LIMIT,
    windowSeconds: env.SUBMIT_RATE_WINDOW_SECONDS,
  });
  if (!limit.allowed) {
    throw new AppError(
      "rate_limited",
      `Too many submissions. Try again in ${limit.retryAfterSeconds} s.`,
      undefined,
      { "Retry-After": String(limit.retryAfterSeconds) },
    );
  }

  // Uploads and pasted URLs, checked before a row or a credit hold exists.
  const uploadIds = await checkMediaInputs({ model, input, ownerId });

  const { prompt, ...rest } = input;
  const duration = typeof input.duration === "number" ? input.duration : undefined;
  const held = creditsEnabled() ? holdFor(model, duration) : null;
  let row;
  try {
    // The spending caps (owner, address, total) and the owner's credits (402) refuse here, before
    // the gateway is asked; and so does an upload deleted since it was checked. From the insert on,
    // the generation holds its estimate in credits and its uploads: the cleanup follows its
    // retention, not the unused uploads'. With credits off (CREDITS_ENABLED=false) it holds none,
    // and takes no credit lock: only the caps bound it.
    row = await insertGeneration(
      {
        model: model.id,
        prompt,
        input: JSON.stringify(rest),
        idempotencyKey: idempotency?.key,
        requestHash: idempotency?.requestHash,
        // Stored from the start, so that a failed or abandoned submission says what will really happen.
        callbackEnabled: callbacksReachable(),
        ownerId,
        // An anonymous visitor is also counted against their address (lib/viewer/get-viewer.ts, signedIn).
        clientKey: viewer.signedIn ? undefined : visitor,
        costEstimate: estimateCredits(model, duration),
        promptSearch: searchText(prompt), // feeds the gallery's search
        traceContext: currentTraceparent(),
        emailWhenReady,
      },
      { uploadIds, hold: held === null ? undefined : { credits: held, visitor } },
    );
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof UploadsGoneError) throw goneUploadsError({ model, input, ids: error.ids });
    // Two concurrent submissions of the same form: the second finds the first.
    const replay = idempotency ? await replaySubmission(idempotency) : undefined;
    if (replay) return replay;
    // The key's first holder expired and was released between the check and this insert.
    if (idempotency) throw new AppError("conflict", "This Idempotency-Key is being reused right now; try again in a moment.");
    throw error;
  }

  return sendSubmission({ id: row.id, model, input, held });
}

/**
 * Sends a generation just inserted (SUBMITTING, its hold written) to the
 * gateway and records the answer: PENDING with its task, or SUBMIT_FAILED with
 * the reason, its hold given back unless the task may have started anyway.
 * A comparison sends each of its videos through here.
 */
export async function sendSubmission({
  id,
  model,
  input,
  held,
}: {
  id: string;
  model: ModelSpec;
  input: Record<string, unknown>;
  /** What the generation holds, null with credits off: the card's charge while in flight. */
  held: number | null;
}): Promise<SubmitResult> {
  const webhookUrl = callbackUrlFor(id);
  try {
    const { taskId } = await sendOnce({ model: model.id, input: gatewayInputOf(model, input), webhookUrl });
    // Conditional: a callback may already have claimed the task (see adoptTask).
    await updateGenerationIf({
      where: { id: id, state: "SUBMITTING", AND: [{ taskId: null }] },
      data: { taskId, state: "PENDING", callbackEnabled: webhookUrl !== undefined, lastHeardAt: new Date() },
    });
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const failure = describeSubmitFailure(error, { followable: webhookUrl !== undefined });
    // Its hold is given back with it, unless the task may have started anyway (store.ts failSubmission).
    await failSubmission({
      id: id,
      data: {
        // The gateway's reason. Provisional where the request may have reached
        // the gateway: if it started the task anyway, the task's callback
        // claims this generation (receive-callback.ts).
        errorCode: storedCode(error),
        errorMessage: failure.message,
        callbackEnabled: webhookUrl !== undefined,
        completedAt: new Date(),
      },
    });
    return { generation: await submittedCard(id, held), error: failure };
  }
  return { generation: await submittedCard(id, held) };
}

/**
 * The card the submitter gets back, with what it holds: the hold just made
 * while the row is in flight, or, once an outcome (or a refusal's release)
 * settled it already, the ledger's word.
 */
async function submittedCard(id: string, held: number | null): Promise<Generation> {
  const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
  const inFlight = row.state === "SUBMITTING" || row.state === "PENDING";
  const charge = held === null ? null : inFlight ? { status: "held" as const, credits: held } : await readCreditCharge(id);
  return toGeneration(row, Date.now(), charge);
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

/** The submission's choice when it made one (remembered as the account's default), else that default. */
async function readyEmailChoice({ userId, chosen }: { userId: string; chosen: boolean | undefined }): Promise<boolean> {
  if (chosen === undefined) return readyEmailsChosen({ userId });
  await chooseReadyEmails({ userId, on: chosen });
  return chosen;
}
