// Submitting a comparison, shared by the server action and POST /api/batches:
// parse → idempotency → rate limit → media inputs → one insert that holds
// every video's estimate (all fit the balance, or nothing is stored) → each
// video sent to the gateway as a single submission is, at once. A model the
// gateway refuses fails alone and gives back its own share; the rest go on.
import "server-only";
import { creditsEnabled, holdFor } from "@/lib/credits/pricing";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { hitRateLimit } from "@/lib/rate-limit";
import { callbacksReachable } from "@/lib/generations/callback-url";
import { IDEMPOTENCY_KEY_TTL_MS, idempotencyFor, replayedAnswer, type Idempotency } from "@/lib/generations/idempotency";
import { checkMediaInputs, goneUploadsError } from "@/lib/generations/media-inputs";
import { searchText } from "@/lib/generations/search-text";
import { estimateCredits } from "@/lib/generations/spend-limit";
import { insertGenerationBatch } from "@/lib/generations/store";
import { sendSubmission, type SubmitResult } from "@/lib/generations/submit";
import { currentTraceparent, traced } from "@/lib/traces/tracing";
import { UploadsGoneError } from "@/lib/uploads/upload-store";
import { assertMayCreate, type Viewer } from "@/lib/viewer/get-viewer";
import { parseBatchRequest, type BatchVideoRequest } from "./batch-request";
import { createBatchIn, releaseBatchKey } from "./batch-store";
import { findBatchByKey } from "./queries";

/** The batch, and each video's own answer (a refused one carries its error) in the order asked. */
export type BatchSubmitResult = { batch: { id: string }; videos: SubmitResult[] };

type SubmitBatchArgs = {
  body: unknown;
  idempotencyKey?: string;
  /** The client's address as a key (visitorKey): the rate limit's, the address spending cap's and the welcome grant's bound. */
  visitor: string;
  viewer: Viewer;
};

export function submitBatch(args: SubmitBatchArgs): Promise<BatchSubmitResult> {
  return traced("batch.submit", { attributes: { "framehook.owner.id": args.viewer.id } }, () => submit(args));
}

async function submit({ body, idempotencyKey, visitor, viewer }: SubmitBatchArgs): Promise<BatchSubmitResult> {
  assertMayCreate(viewer);
  const ownerId = viewer.id;
  const parsed = parseBatchRequest(body);
  if (!parsed.ok) throw new AppError("invalid_input", "Check the highlighted fields.", parsed.fieldErrors);
  const { prompt, videos } = parsed;

  const idempotency = idempotencyFor({ idempotencyKey, ownerId, model: "compare", input: { videos: videos.map(requestOf) } });
  // A repeated submission (a double click, a retried request) answers as the first one did.
  const replay = idempotency ? await replayBatch(idempotency) : undefined;
  if (replay) return replay;

  // Each video is a submission to the gateway: the rate limit counts them all.
  for (let i = 0; i < videos.length; i++) {
    const limit = await hitRateLimit({ key: `submit:${visitor}`, limit: env.SUBMIT_RATE_LIMIT, windowSeconds: env.SUBMIT_RATE_WINDOW_SECONDS });
    if (!limit.allowed) {
      throw new AppError("rate_limited", `Too many submissions. Try again in ${limit.retryAfterSeconds} s.`, undefined, {
        "Retry-After": String(limit.retryAfterSeconds),
      });
    }
  }

  // Each model's media inputs against its own limits, before a row or a hold exists.
  const uploadIds = await Promise.all(videos.map((video, i) => checkMediaInputs({ model: video.model, input: video.input, ownerId }).catch(underVideo(i))));

  const withCredits = creditsEnabled();
  const rows = videos.map((video, i) => {
    // The prompt is stored in its own column, as a single submission's is.
    const rest = Object.fromEntries(Object.entries(video.input).filter(([field]) => field !== "prompt"));
    const duration = typeof video.input.duration === "number" ? video.input.duration : undefined;
    return {
      data: {
        model: video.model.id,
        prompt,
        input: JSON.stringify(rest),
        callbackEnabled: callbacksReachable(),
        ownerId,
        clientKey: viewer.signedIn ? undefined : visitor,
        costEstimate: estimateCredits(video.model, duration),
        promptSearch: searchText(prompt),
        traceContext: currentTraceparent(),
      },
      uploadIds: uploadIds[i]!,
      credits: withCredits ? holdFor(video.model, duration) : null,
    };
  });

  let inserted;
  try {
    // The caps count the batch as its videos, and the owner's credits must cover them all (a 402 that says how many are missing).
    inserted = await insertGenerationBatch(rows, {
      visitor,
      createBatch: (tx) => createBatchIn(tx, { ownerId, prompt, idempotencyKey: idempotency?.key, requestHash: idempotency?.requestHash }),
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof UploadsGoneError) {
      const gone = error.ids;
      const i = Math.max(0, uploadIds.findIndex((ids) => ids.some((id) => gone.includes(id))));
      underVideo(i)(goneUploadsError({ model: videos[i]!.model, input: videos[i]!.input, ids: gone }));
    }
    // Two concurrent submissions of the same form: the second finds the first (its batch row's key is unique).
    const replay = idempotency ? await replayBatch(idempotency) : undefined;
    if (replay) return replay;
    if (idempotency) throw new AppError("conflict", "This Idempotency-Key is being reused right now; try again in a moment.");
    throw error;
  }

  // Every video to the gateway at once; each records its own answer (and a refusal gives back its own hold).
  const answers = await Promise.all(
    inserted.rows.map((row, i) => sendSubmission({ id: row.id, model: videos[i]!.model, input: videos[i]!.input, held: rows[i]!.credits })),
  );
  return { batch: inserted.batch, videos: answers };
}

/** A video's request as the key's hash binds it: the model and its input, keys sorted. */
const requestOf = (video: BatchVideoRequest) => [video.model.id, Object.fromEntries(Object.entries(video.input).sort(([a], [b]) => a.localeCompare(b)))];

/** A model's field errors, keyed under its place in the batch (`videos.<i>.<field>`) as the form names them. */
function underVideo(i: number) {
  return (error: unknown): never => {
    if (!(error instanceof AppError) || !error.fields) throw error;
    const fields = Object.fromEntries(Object.entries(error.fields).map(([field, messages]) => [`videos.${i}.${field}`, messages]));
    throw new AppError(error.code, error.message, fields, error.headers);
  };
}

/**
 * The answer to a comparison repeated with the same key: the batch it made,
 * each video as it stands (a refused one with its refusal); 409 while one is
 * still with the gateway; 422 for a different request under the same key.
 */
async function replayBatch({ key, requestHash }: Idempotency): Promise<BatchSubmitResult | undefined> {
  const existing = await findBatchByKey({ idempotencyKey: key });
  if (!existing) return undefined;
  if (Date.now() - existing.createdAt.getTime() > IDEMPOTENCY_KEY_TTL_MS) {
    await releaseBatchKey({ id: existing.id, idempotencyKey: key });
    return undefined;
  }
  if (existing.requestHash !== requestHash) {
    throw new AppError(
      "idempotency_key_reused",
      "This Idempotency-Key was already used for a different request. Send a new key with each new submission.",
    );
  }
  if (existing.generations.some((g) => g.state === "SUBMITTING")) {
    throw new AppError("conflict", "This comparison is still being sent to the gateway; try again in a moment.");
  }
  return { batch: { id: existing.id }, videos: existing.generations.map(replayedAnswer) };
}
