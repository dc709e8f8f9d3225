// The gateway's own checks of a generation request: a refusal names the field.
import { DEFAULT_DURATION_SECONDS, SIMULATED_MODELS } from "./pricing";

export type Invalid = { status: 400 | 422; code: string; message: string; field?: string };

const isHttpUrl = (v: unknown) => {
  if (typeof v !== "string") return false;
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

export function validateGenerateRequest(body: unknown): Invalid | { model: string; input: Record<string, unknown>; webhookUrl: string | null } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { status: 400, code: "bad_request", message: "Body must be a JSON object." };
  }
  const { model, input, webhook_url } = body as Record<string, unknown>;
  if (typeof model !== "string" || !model) return invalid("model", "model is required");
  const spec = SIMULATED_MODELS[model];
  if (!spec) return { status: 422, code: "unknown_model", field: "model", message: `Unknown model '${model.slice(0, 100)}'.` };
  if (typeof input !== "object" || input === null || Array.isArray(input)) return invalid("input", "input must be an object");
  const fields = input as Record<string, unknown>;
  if (typeof fields.prompt !== "string" || fields.prompt.trim() === "") return invalid("input.prompt", "input.prompt is required");
  if (fields.prompt.length > 5000) return invalid("input.prompt", "input.prompt is longer than 5000 characters");
  if (fields.duration !== undefined) {
    const d = fields.duration;
    if (typeof d !== "number" || !Number.isInteger(d) || d < 1 || d > 30) return invalid("input.duration", "input.duration must be an integer from 1 to 30");
  }
  if (spec.kind === "first-last-frame") {
    for (const name of ["first_frame_url", "last_frame_url"]) {
      if (!isHttpUrl(fields[name])) return invalid(`input.${name}`, `input.${name} must be an http(s) URL`);
    }
  }
  if (spec.kind === "reference-to-video") {
    const urls = fields.reference_video_urls;
    if (!Array.isArray(urls) || urls.length === 0 || !urls.every(isHttpUrl)) {
      return invalid("input.reference_video_urls", "input.reference_video_urls must be a non-empty array of http(s) URLs");
    }
  }
  if (webhook_url !== undefined && webhook_url !== null && !isHttpUrl(webhook_url)) return invalid("webhook_url", "webhook_url must be an http(s) URL");
  return { model, input: { duration: DEFAULT_DURATION_SECONDS, ...fields }, webhookUrl: (webhook_url as string | undefined) ?? null };
}

function invalid(field: string, message: string): Invalid {
  return { status: 422, code: "invalid_input", field, message };
}

export function isInvalid(v: unknown): v is Invalid {
  return typeof v === "object" && v !== null && "status" in v && "code" in v;
}
