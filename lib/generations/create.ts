// The one entry point for new generations, shared by the server action and
// POST /api/generations: validate, then submit.
import "server-only";
import { AppError } from "@/lib/errors";
import { parseGenerationRequest } from "@/lib/models/input-schema";
import { submitGeneration, type SubmitResult } from "./submit";

export async function createGeneration({ body, idempotencyKey }: { body: unknown; idempotencyKey?: string }): Promise<SubmitResult> {
  const parsed = parseGenerationRequest(body);
  if (!parsed.ok) throw new AppError("invalid_input", "Check the highlighted fields.", parsed.fieldErrors);
  if (idempotencyKey !== undefined && !/^[\w-]{8,100}$/.test(idempotencyKey)) {
    throw new AppError("bad_request", "Idempotency-Key must be 8–100 letters, digits, '-' or '_'.");
  }
  return submitGeneration({ model: parsed.model, input: parsed.input, idempotencyKey });
}
