// What a model's media inputs may be (formats, bytes, pixels, seconds, fps),
// and the one check of a file's facts against them. Plain data and pure
// functions: the upload route, the submit use case and the form's preview all
// name a broken limit with the same words.

export type ImageFormat = "png" | "jpeg" | "webp";
export type VideoFormat = "mp4" | "mov" | "webm";
export type MediaFormat = ImageFormat | VideoFormat;

type PixelLimits = {
  maxBytes: number;
  minWidth: number;
  minHeight: number;
  maxWidth: number;
  maxHeight: number;
  /** width ÷ height bounds, when the model cares. */
  minAspect?: number;
  maxAspect?: number;
};

export type ImageLimits = PixelLimits & { formats: readonly ImageFormat[] };
export type VideoLimits = PixelLimits & { formats: readonly VideoFormat[]; minDurationSeconds?: number; maxDurationSeconds: number; maxFps: number };
export type MediaLimits = ImageLimits | VideoLimits;

export const FORMAT_CONTENT_TYPE: Record<MediaFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  mp4: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
};
export const FORMAT_LABEL: Record<MediaFormat, string> = { png: "PNG", jpeg: "JPEG", webp: "WebP", mp4: "MP4", mov: "QuickTime", webm: "WebM" };
export const isVideoFormat = (format: MediaFormat): format is VideoFormat => format === "mp4" || format === "mov" || format === "webm";

/** What was read from a file's bytes. */
export type MediaFacts = {
  format: MediaFormat;
  size: number;
  width: number;
  height: number;
  durationSeconds: number | null;
  fps: number | null;
};

export const isVideoLimits = (limits: MediaLimits): limits is VideoLimits => "maxDurationSeconds" in limits;

/** Every limit `facts` breaks, each as a sentence naming the file's value and the model's limit; [] when it fits. */
export function mediaProblems({ facts, limits, modelLabel }: { facts: MediaFacts; limits: MediaLimits; modelLabel: string }): string[] {
  const video = isVideoLimits(limits);
  const what = isVideoFormat(facts.format) ? "clip" : "image";
  if (!(limits.formats as readonly MediaFormat[]).includes(facts.format)) {
    return [`This file is ${article(FORMAT_LABEL[facts.format])} ${isVideoFormat(facts.format) ? "video" : "image"}; ${modelLabel} takes ${listFormats(limits)}.`];
  }
  const problems: string[] = [];
  if (facts.size > limits.maxBytes) problems.push(`This ${what} is ${formatBytes(facts.size)}; ${modelLabel} takes up to ${formatBytes(limits.maxBytes)}.`);
  const size = `${facts.width} × ${facts.height} px`;
  if (facts.width < limits.minWidth || facts.height < limits.minHeight) {
    problems.push(`This ${what} is ${size}; ${modelLabel} takes at least ${limits.minWidth} × ${limits.minHeight} px.`);
  } else if (facts.width > limits.maxWidth || facts.height > limits.maxHeight) {
    problems.push(`This ${what} is ${size}; ${modelLabel} takes up to ${limits.maxWidth} × ${limits.maxHeight} px.`);
  }
  const aspect = facts.width / facts.height;
  if ((limits.minAspect !== undefined && aspect < limits.minAspect) || (limits.maxAspect !== undefined && aspect > limits.maxAspect)) {
    problems.push(`This ${what} is ${size} (${aspect.toFixed(2)} wide per 1 high); ${modelLabel} takes shapes from ${limits.minAspect ?? 0} to ${limits.maxAspect ?? "any"}.`);
  }
  if (video) {
    if (facts.durationSeconds === null) problems.push(`This clip's length cannot be read; ${modelLabel} needs to know it.`);
    else if (facts.durationSeconds > limits.maxDurationSeconds) problems.push(`This clip is ${formatSeconds(facts.durationSeconds)}; ${modelLabel} takes up to ${formatSeconds(limits.maxDurationSeconds)}.`);
    else if (limits.minDurationSeconds !== undefined && facts.durationSeconds < limits.minDurationSeconds) {
      problems.push(`This clip is ${formatSeconds(facts.durationSeconds)}; ${modelLabel} takes at least ${formatSeconds(limits.minDurationSeconds)}.`);
    }
    if (facts.fps !== null && facts.fps > limits.maxFps + 0.01) problems.push(`This clip is ${Math.round(facts.fps)} fps; ${modelLabel} takes up to ${limits.maxFps} fps.`);
  }
  return problems;
}

/** The limits in a line, for the form's help text. */
export function describeLimits(limits: MediaLimits): string {
  const parts = [listFormats(limits), `up to ${formatBytes(limits.maxBytes)}`, `${limits.minWidth}–${limits.maxWidth} px wide`];
  if (isVideoLimits(limits)) parts.push(`up to ${formatSeconds(limits.maxDurationSeconds)}`, `up to ${limits.maxFps} fps`);
  return parts.join(" · ");
}

function listFormats(limits: MediaLimits): string {
  const names = limits.formats.map((f) => FORMAT_LABEL[f]);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0]!;
  return `${list} ${isVideoLimits(limits) ? "videos" : "images"}`;
}

const article = (word: string) => (/^[AEFHILMNORSX]/.test(word) ? `an ${word}` : `a ${word}`);

export function formatSeconds(seconds: number): string {
  if (seconds >= 120) return `${Math.round(seconds / 60)} min`;
  const rounded = Math.round(seconds * 10) / 10;
  return `${rounded} s`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  const mb = bytes / 1024 ** 2;
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}
