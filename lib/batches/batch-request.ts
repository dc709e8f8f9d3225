// What a comparison asks for: one prompt, two to four distinct models, each
// with its own options. Validated model by model with the single submission's
// schema, so a video of a batch takes exactly what that model takes alone.
import { z } from "zod";
import { parseGenerationRequest, type GenerationInput } from "@/lib/models/input-schema";
import type { ModelSpec } from "@/lib/models/catalog";

export const BATCH_MIN_MODELS = 2;
export const BATCH_MAX_MODELS = 4;

const batchRequestSchema = z.object({
  prompt: z.unknown(),
  videos: z
    .array(z.object({ model: z.unknown(), input: z.record(z.string(), z.unknown()).optional() }))
    .min(BATCH_MIN_MODELS, `Pick at least ${BATCH_MIN_MODELS} models to compare`)
    .max(BATCH_MAX_MODELS, `Compare at most ${BATCH_MAX_MODELS} models`),
});

export type BatchVideoRequest = { model: ModelSpec; input: GenerationInput };

export type ParsedBatchRequest =
  | { ok: true; prompt: string; videos: BatchVideoRequest[] }
  | { ok: false; fieldErrors: Record<string, string[]> };

/**
 * Validates `{prompt, videos: [{model, input}]}`. Field errors are keyed
 * `prompt`, `videos` (the list itself), and `videos.<i>.<field>` for a
 * model's own options, so the form shows each under its model's name.
 */
export function parseBatchRequest(body: unknown): ParsedBatchRequest {
  const request = batchRequestSchema.safeParse(body);
  if (!request.success) {
    const flat = z.flattenError(request.error).fieldErrors as Record<string, string[]>;
    return { ok: false, fieldErrors: { videos: flat.videos ?? ["Send the models to compare as videos: [{model, input}]"], ...(flat.prompt ? { prompt: flat.prompt } : {}) } };
  }
  const errors: Record<string, string[]> = {};
  const videos: BatchVideoRequest[] = [];
  const seen = new Set<unknown>();
  request.data.videos.forEach((video, i) => {
    if (seen.has(video.model)) (errors[`videos.${i}.model`] ??= []).push("Each model once: this one is already in the comparison");
    seen.add(video.model);
    // The prompt is the batch's: one given inside a video's input is overridden, never compared.
    const parsed = parseGenerationRequest({ model: video.model, input: { ...video.input, prompt: request.data.prompt } });
    if (parsed.ok) {
      videos.push({ model: parsed.model, input: parsed.input });
      return;
    }
    for (const [field, messages] of Object.entries(parsed.fieldErrors)) {
      // The prompt is asked once, and so is it refused.
      if (field === "prompt") errors.prompt ??= messages;
      else (errors[`videos.${i}.${field}`] ??= []).push(...messages);
    }
  });
  if (Object.keys(errors).length) return { ok: false, fieldErrors: errors };
  return { ok: true, prompt: videos[0]!.input.prompt, videos };
}
