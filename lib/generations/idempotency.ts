// Idempotency keys on submissions (Stripe's and the IETF draft's rules): a
// key is the owner's own, bound to the request it first came with, and
// answers for IDEMPOTENCY_KEY_TTL_MS; a repeat answers as the first did.
import "server-only";
import { createHash } from "node:crypto";
import { prisma } from "@/lib/db";
import { AppError, type ErrorCode } from "@/lib/errors";
import type { Generation as GenerationRow } from "@/lib/generated/prisma/client";
import { toGeneration } from "./generation";
import { updateGenerationIf } from "./store";
import type { SubmitResult } from "./submit";

/** How long an Idempotency-Key answers for its first request; after that it may be used afresh. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

export type Idempotency = { key: string; requestHash: string };

/**
 * The stored form of a client's key, or undefined without one: scoped to the
 * owner (another owner's key is a different key) and bound to a hash of the
 * model and the validated input, keys sorted.
 */
export function idempotencyFor({
  idempotencyKey,
  ownerId,
  model,
  input,
}: {
  idempotencyKey: string | undefined;
  ownerId: string;
  model: string;
  input: Record<string, unknown>;
}): Idempotency | undefined {
  if (idempotencyKey === undefined) return undefined;
  if (!/^[\w-]{8,100}$/.test(idempotencyKey)) {
    throw new AppError("bad_request", "Idempotency-Key must be 8–100 letters, digits, '-' or '_'.");
  }
  return { key: `${ownerId}:${idempotencyKey}`, requestHash: hashRequest(model, input) };
}

function hashRequest(model: string, input: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.entries(input).sort(([a], [b]) => a.localeCompare(b)));
  return createHash("sha256").update(JSON.stringify([model, sorted])).digest("base64url");
}

const REPLAYED_ERRORS: Record<string, ErrorCode> = {
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
export async function replaySubmission({ key, requestHash }: Idempotency): Promise<SubmitResult | undefined> {
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
  return replayedAnswer(existing);
}

/** What a repeat is answered for a generation its first request settled: the generation, with the refusal it got, if any. */
export function replayedAnswer(existing: GenerationRow): SubmitResult {
  const generation = toGeneration(existing);
  if (existing.state !== "SUBMIT_FAILED") return { generation };
  const code = REPLAYED_ERRORS[existing.errorCode ?? ""] ?? "gateway_unavailable";
  return { generation, error: new AppError(code, existing.errorMessage ?? "The gateway refused this submission.") };
}
