// The model catalog: every model the kit offers, its kind, price and input
// fields. Plain data, so the browser can render the form from it without zod.
// To offer another of the gateway's models, add one entry here: media inputs
// (frames, reference videos) carry their limits beside the price and schema.
import type { ImageLimits, VideoLimits } from "./media-limits";

export type { ImageLimits, VideoLimits };

export type ModelKind = "text-to-video" | "first-last-frame" | "reference-to-video";

export type FieldSpec =
  | { name: string; label: string; type: "text"; required: boolean; maxLength: number; multiline?: boolean; placeholder?: string }
  | { name: string; label: string; type: "integer"; required: boolean; min: number; max: number; default?: number; unit?: string }
  | { name: string; label: string; type: "select"; required: boolean; options: readonly string[]; default?: string }
  | { name: string; label: string; type: "url"; required: boolean; placeholder?: string }
  | { name: string; label: string; type: "url-list"; required: boolean; maxItems: number; placeholder?: string }
  /** An image the end user uploads (or an API client names by public URL); checked against `limits` from its bytes. */
  | { name: string; label: string; type: "image"; required: boolean; limits: ImageLimits }
  /** One to `maxItems` videos, uploaded or by public URL, each checked against `limits`. */
  | { name: string; label: string; type: "video-list"; required: boolean; maxItems: number; limits: VideoLimits };

export type MediaFieldSpec = Extract<FieldSpec, { type: "image" | "video-list" }>;

export type ModelSpec = {
  id: string;
  label: string;
  kind: ModelKind;
  /** USD per output second; null where the gateway says "pay-per-use". */
  usdPerSecond: number | null;
  fields: readonly FieldSpec[];
  /** Extra input fields not listed above are refused unless this is true. */
  passthrough?: boolean;
};

export const PROMPT_MAX_LENGTH = 2000;
export const DEFAULT_DURATION_SECONDS = 5;

const prompt: FieldSpec = {
  name: "prompt",
  label: "Prompt",
  type: "text",
  required: true,
  maxLength: PROMPT_MAX_LENGTH,
  multiline: true,
  placeholder: "A paper boat drifting down a rain-soaked street at dusk",
};
const duration: FieldSpec = {
  name: "duration",
  label: "Duration",
  type: "integer",
  required: false,
  min: 2,
  max: 10,
  default: DEFAULT_DURATION_SECONDS,
  unit: "s",
};
const textToVideoFields: readonly FieldSpec[] = [
  prompt,
  duration,
  { name: "aspect_ratio", label: "Aspect ratio", type: "select", required: false, options: ["16:9", "9:16", "1:1"], default: "16:9" },
  { name: "negative_prompt", label: "Negative prompt", type: "text", required: false, maxLength: 500 },
  { name: "seed", label: "Seed", type: "integer", required: false, min: 0, max: 2_147_483_647 },
];
const MB = 1024 * 1024;
/** Stills the first/last-frame model takes: a photo from a phone fits, a poster-sized scan does not. */
const frameLimits: ImageLimits = {
  formats: ["png", "jpeg", "webp"],
  maxBytes: 10 * MB,
  minWidth: 256,
  minHeight: 256,
  maxWidth: 4096,
  maxHeight: 4096,
  minAspect: 0.4,
  maxAspect: 2.5,
};
/** Reference clips; each reference model differs only in how long a clip it takes. */
const referenceLimits = (maxDurationSeconds: number): VideoLimits => ({
  formats: ["mp4", "mov", "webm"],
  maxBytes: 100 * MB,
  minWidth: 256,
  minHeight: 256,
  maxWidth: 1920,
  maxHeight: 1920,
  minDurationSeconds: 1,
  maxDurationSeconds,
  maxFps: 60,
});
const referenceFields = (maxDurationSeconds: number): readonly FieldSpec[] => [
  prompt,
  { name: "reference_video_urls", label: "Reference videos", type: "video-list", required: true, maxItems: 3, limits: referenceLimits(maxDurationSeconds) },
  duration,
];

export const MODELS = [
  { id: "alpha-2.5-text-to-video-480p", label: "Alpha 2.5 · 480p", kind: "text-to-video", usdPerSecond: 0.1408, fields: textToVideoFields },
  { id: "alpha-2.5-text-to-video", label: "Alpha 2.5", kind: "text-to-video", usdPerSecond: 0.1408, fields: textToVideoFields },
  {
    id: "alpha-2.5-first-last-frame-480p",
    label: "Alpha 2.5 first & last frame · 480p",
    kind: "first-last-frame",
    usdPerSecond: 0.1408,
    fields: [
      prompt,
      { name: "first_frame_url", label: "First frame", type: "image", required: true, limits: frameLimits },
      { name: "last_frame_url", label: "Last frame", type: "image", required: true, limits: frameLimits },
      duration,
    ],
  },
  { id: "beta-1-1/reference-to-video", label: "Beta 1.1 reference", kind: "reference-to-video", usdPerSecond: null, fields: referenceFields(15) },
  { id: "gamma/reference-to-video", label: "Gamma reference", kind: "reference-to-video", usdPerSecond: null, fields: referenceFields(8) },
  { id: "delta-h3/reference-to-video", label: "Delta H3 reference", kind: "reference-to-video", usdPerSecond: 0.1181, fields: referenceFields(10) },
] as const satisfies readonly ModelSpec[];

export type ModelId = (typeof MODELS)[number]["id"];
export const MODEL_IDS = MODELS.map((m) => m.id) as [ModelId, ...ModelId[]];
export const DEFAULT_MODEL_ID: ModelId = "alpha-2.5-text-to-video-480p";

export const KIND_LABELS: Record<ModelKind, string> = {
  "text-to-video": "Text to video",
  "first-last-frame": "First & last frame",
  "reference-to-video": "Reference to video",
};

export function findModel(id: string): ModelSpec | undefined {
  return MODELS.find((m) => m.id === id);
}

export const isMediaField = (field: FieldSpec): field is MediaFieldSpec => field.type === "image" || field.type === "video-list";

/** A model's media fields (frames, reference videos), in the form's order. */
export const mediaFieldsOf = (model: ModelSpec): MediaFieldSpec[] => model.fields.filter(isMediaField);

/** A model's media field by name (the upload route checks a file against it), or undefined. */
export function findMediaField(model: ModelSpec, name: string): MediaFieldSpec | undefined {
  return mediaFieldsOf(model).find((f) => f.name === name);
}

/** What an input holds for a media field: an image's one value, a list's each; upload ids or URLs. */
export function mediaValuesOf(field: MediaFieldSpec, input: Record<string, unknown>): string[] {
  const value = input[field.name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is string => typeof v === "string");
}

export function priceLabel(model: ModelSpec): string {
  return model.usdPerSecond === null ? "pay-per-use" : `$${model.usdPerSecond.toFixed(4)}/s`;
}

/** Estimated USD cost of one output, or null when the gateway does not publish a rate. */
export function estimateCostUsd(model: ModelSpec, durationSeconds: number | undefined): number | null {
  if (model.usdPerSecond === null) return null;
  return model.usdPerSecond * (durationSeconds ?? DEFAULT_DURATION_SECONDS);
}

export function formatCostEstimate(model: ModelSpec, durationSeconds: number | undefined): string {
  const usd = estimateCostUsd(model, durationSeconds);
  return usd === null ? "pay-per-use" : `≈ $${usd.toFixed(2)}`;
}
