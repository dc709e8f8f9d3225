// The compare form's field names, read on the server and named on the
// client alike: `models` (the picked ids), `prompt`, `shared.<field>` for the
// options every picked model has, `own.<model>.<field>` for a model's own.
import { isMediaField, type FieldSpec, type MediaFieldSpec, type ModelSpec } from "@/lib/models/catalog";

export const ownFieldName = (modelId: string, field: string) => `own.${modelId}.${field}`;
export const sharedFieldName = (field: string) => `shared.${field}`;

const sameField = (a: FieldSpec, b: FieldSpec) => a.name === b.name && a.type === b.type && JSON.stringify(a) === JSON.stringify(b);

/** The options asked once: every picked model has the very same field (the prompt and media inputs aside). */
export function sharedFieldsOf(models: readonly ModelSpec[]): Exclude<FieldSpec, MediaFieldSpec>[] {
  const [first, ...rest] = models;
  if (!first) return [];
  return first.fields.filter(
    (f): f is Exclude<FieldSpec, MediaFieldSpec> => f.name !== "prompt" && !isMediaField(f) && rest.every((m) => m.fields.some((g) => sameField(f, g))),
  );
}

/** A model's own options: what is not asked once. */
export function ownFieldsOf(model: ModelSpec, shared: readonly FieldSpec[]): FieldSpec[] {
  return model.fields.filter((f) => f.name !== "prompt" && !shared.some((s) => s.name === f.name));
}

/** The batch request a filled-in compare form makes, and the models in the order sent. */
export function readCompareForm(formData: FormData): { body: unknown; models: string[] } {
  const models = formData.getAll("models").filter((m): m is string => typeof m === "string");
  const shared: Record<string, string> = {};
  for (const [name, value] of formData) {
    if (name.startsWith("shared.") && typeof value === "string") shared[name.slice("shared.".length)] = value;
  }
  const videos = models.map((model) => {
    const input: Record<string, string> = { ...shared };
    const prefix = `own.${model}.`;
    for (const [name, value] of formData) if (name.startsWith(prefix) && typeof value === "string") input[name.slice(prefix.length)] = value;
    return { model, input };
  });
  return { body: { prompt: formData.get("prompt") ?? "", videos }, models };
}

/** A batch's field error key (`videos.<i>.<field>`) as the form names the field it shows it beside. */
export function compareFieldName(key: string, models: readonly string[]): string {
  const match = /^videos\.(\d+)\.(.+)$/.exec(key);
  if (!match) return key === "videos" ? "models" : key;
  const model = models[Number(match[1])];
  const field = match[2]!;
  if (field === "model") return "models";
  return model ? ownFieldName(model, field) : key;
}
