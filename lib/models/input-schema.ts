// zod schemas for model inputs, built from the catalog's field specs so a new
// catalog entry needs no schema code of its own.
import { z } from "zod";
import { findModel, MODEL_IDS, type FieldSpec, type ModelSpec } from "./catalog";

const httpUrl = z
  .string()
  .trim()
  .pipe(z.url({ protocol: /^https?$/, message: "Enter an http(s) URL" }));

/** An upload's id (lib/uploads): where a media field takes a URL, it takes one of these too. */
export const UPLOAD_ID_PATTERN = /^upl_[a-z0-9]{24}$/;
export const isUploadId = (value: unknown): value is string => typeof value === "string" && UPLOAD_ID_PATTERN.test(value);

const mediaReference = z
  .string()
  .trim()
  .refine((v) => isUploadId(v) || httpUrl.safeParse(v).success, "Upload a file, or enter an http(s) URL");

const listOf = (item: z.ZodType, maxItems: number, noun: string) =>
  z.preprocess(
    (v) => (typeof v === "string" ? v.split(/[\s,]+/).filter(Boolean) : v),
    z.array(item).min(1, `Enter at least one ${noun}`).max(maxItems, `At most ${maxItems} ${noun}s`),
  );

function fieldSchema(field: FieldSpec): z.ZodType {
  switch (field.type) {
    case "text":
      // PostgreSQL's text cannot store U+0000; no prompt needs it.
      return z
        .string()
        .trim()
        .max(field.maxLength, `At most ${field.maxLength} characters`)
        .refine((s) => !s.includes("\u0000"), "Contains a NUL character");
    case "integer":
      return z.coerce
        .number({ message: "Enter a whole number" })
        .int("Enter a whole number")
        .min(field.min, `At least ${field.min}`)
        .max(field.max, `At most ${field.max}`);
    case "select":
      return z.enum(field.options as [string, ...string[]], { message: `One of ${field.options.join(", ")}` });
    case "url":
      return httpUrl;
    case "url-list":
      return listOf(httpUrl, field.maxItems, "URL");
    case "image":
      return mediaReference;
    case "video-list":
      return listOf(mediaReference, field.maxItems, "video");
  }
}

const requiredMessage = (issue: { code: string; input?: unknown }) =>
  issue.code === "invalid_type" && issue.input === undefined ? "Required" : undefined;

/** Empty strings from a form mean "not given". */
const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);

export function inputSchemaFor(model: ModelSpec) {
  const shape: Record<string, z.ZodType> = {};
  for (const field of model.fields) {
    const base = fieldSchema(field);
    shape[field.name] = field.required
      ? z.preprocess(blankToUndefined, field.type === "text" ? (base as z.ZodString).min(1, "Required") : base)
      : z.preprocess(blankToUndefined, base.optional());
  }
  const object = z.object(shape);
  return model.passthrough ? object.loose() : object.strict();
}

export const generationRequestSchema = z.object({
  model: z.enum(MODEL_IDS, { message: "Choose one of the listed models" }),
  input: z.record(z.string(), z.unknown()),
  /** A signed-in owner's choice of an email when it settles; left out, their default (lib/notifications). */
  emailWhenReady: z.boolean({ message: "Must be true or false" }).optional(),
});

export type GenerationInput = Record<string, unknown> & { prompt: string };

export type ParsedGenerationRequest =
  | { ok: true; model: ModelSpec; input: GenerationInput; emailWhenReady?: boolean }
  | { ok: false; fieldErrors: Record<string, string[]> };

/** Validates `{model, input}`; field errors are keyed by input field name (or "model"). */
export function parseGenerationRequest(body: unknown): ParsedGenerationRequest {
  const request = generationRequestSchema.safeParse(body, { error: requiredMessage });
  if (!request.success) {
    const flat = z.flattenError(request.error).fieldErrors as Record<string, string[]>;
    return { ok: false, fieldErrors: flat };
  }
  const model = findModel(request.data.model)!;
  const input = inputSchemaFor(model).safeParse(request.data.input, { error: requiredMessage });
  if (!input.success) {
    // No prototype: an input named "toString" or "constructor" is just a key.
    const fieldErrors: Record<string, string[]> = Object.create(null);
    for (const issue of input.error.issues) {
      const key =
        issue.code === "unrecognized_keys" ? issue.keys.join(", ") : String(issue.path[0] ?? "input");
      const message = issue.code === "unrecognized_keys" ? `Not an input of ${model.id}` : issue.message;
      (fieldErrors[key] ??= []).push(message);
    }
    // Back to a plain object (own keys only), which React can send to the form.
    return { ok: false, fieldErrors: { ...fieldErrors } };
  }
  return { ok: true, model, input: input.data as GenerationInput, emailWhenReady: request.data.emailWhenReady };
}
