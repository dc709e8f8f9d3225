// The one entry point for new generations, shared by the server action and
// POST /api/generations: validate, rate-limit, then submit.
import "server-only";
import { createHash } from "node:crypto";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { parseGenerationRequest } from "@/lib/models/input-schema";
import { hitRateLimit } from "@/lib/rate-limit";
import type { Viewer } from "@/lib/viewer/get-viewer";
import { replaySubmission, submitGeneration, type SubmitResult } from "./submit";

export async function createGeneration({
  body,
  idempotencyKey,
  visitor,
  viewer,
}: {
  body: unknown;
  idempotencyKey?: string;
  /** The client's address as a key (visitorKey): the rate limit's, and the address spending cap's. */
  visitor: string;
  /** Whom the generation will belong to; idempotency keys are scoped to them. */
  viewer: Viewer;
}): Promise<SubmitResult> {
  const ownerId = viewer.id;
  const parsed = parseGenerationRequest(body);
  if (!parsed.ok) throw new AppError("invalid_input", "Check the highlighted fields.", parsed.fieldErrors);
  if (idempotencyKey !== undefined && !/^[\w-]{8,100}$/.test(idempotencyKey)) {
    throw new AppError("bad_request", "Idempotency-Key must be 8–100 letters, digits, '-' or '_'.");
  }
  // Keys are the owner's own: another owner's key is a different key.
  const idempotency = idempotencyKey
    ? { key: `${ownerId}:${idempotencyKey}`, requestHash: hashRequest(parsed.model.id, parsed.input) }
    : undefined;
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
  // An anonymous visitor is also counted against their address (lib/viewer/get-viewer.ts, signedIn).
  const clientKey = viewer.signedIn ? undefined : visitor;
  return submitGeneration({ model: parsed.model, input: parsed.input, idempotency, ownerId, clientKey });
}

/** The request an idempotency key is bound to: the model and the validated input, keys sorted. */
function hashRequest(model: string, input: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.entries(input).sort(([a], [b]) => a.localeCompare(b)));
  return createHash("sha256").update(JSON.stringify([model, sorted])).digest("base64url");
}
