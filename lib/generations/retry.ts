// Retrying a generation that failed or was never submitted: a new generation
// with the same model and inputs. The idempotency key is derived from the one
// retried, so a double click (or two tabs) creates one new generation.
import "server-only";
import { AppError } from "@/lib/errors";
import type { Viewer } from "@/lib/viewer/get-viewer";
import { submitGeneration, type SubmitResult } from "./submit";
import { getGeneration } from "./queries";

export const RETRYABLE_STATES = ["FAILURE", "SUBMIT_FAILED"] as const;

/** Only the owner's own generations: a showcase card of someone else's is not theirs to retry. */
export async function retryGeneration({ id, visitor, viewer }: { id: string; visitor: string; viewer: Viewer }): Promise<SubmitResult> {
  const original = await getGeneration({ id, owner: { ownerId: viewer.id } });
  if (!original) throw new AppError("not_found", "No such generation.");
  if (!(RETRYABLE_STATES as readonly string[]).includes(original.state)) {
    throw new AppError("conflict", "Only a failed or unsubmitted generation can be retried.");
  }
  return submitGeneration({
    body: { model: original.model, input: { ...original.input, prompt: original.prompt } },
    idempotencyKey: `retry-${original.id}`,
    visitor,
    viewer,
  });
}
