// How long a generation is likely to take, from this app's own history: the
// median completion time of recent successes of the same model and duration.
// Pure, so the browser and the server share it and tests need no database.

/** Successes considered per model and duration: recent enough to follow the gateway's mood. */
export const COMPLETION_SAMPLES = 20;

/** Generations of one model and duration share a typical completion time. */
export function completionTimeKey(model: string, input: Record<string, unknown>): string {
  const duration = typeof input.duration === "number" || typeof input.duration === "string" ? String(input.duration) : "";
  return `${model}|${duration}`;
}

/**
 * The typical completion time in ms, or null without history. The median,
 * not the mean: one task stuck for an hour must not stretch every bar.
 * `durationsMs` is newest first; only the first COMPLETION_SAMPLES count.
 */
export function typicalDurationMs(durationsMs: readonly number[]): number | null {
  const samples = durationsMs
    .filter((ms) => Number.isFinite(ms) && ms >= 0)
    .slice(0, COMPLETION_SAMPLES)
    .sort((a, b) => a - b);
  if (samples.length === 0) return null;
  const middle = Math.floor(samples.length / 2);
  return samples.length % 2 ? samples[middle]! : Math.round((samples[middle - 1]! + samples[middle]!) / 2);
}

export type Progress =
  | { kind: "unknown" }
  | { kind: "on-track"; fraction: number; remainingMs: number }
  | { kind: "slow" }
  | { kind: "overdue" };

/** Where a generation in progress stands against its typical completion time. */
export function progressOf({ elapsedMs, typicalMs, overdue }: { elapsedMs: number; typicalMs: number | null; overdue: boolean }): Progress {
  if (overdue) return { kind: "overdue" };
  if (typicalMs === null || typicalMs <= 0) return { kind: "unknown" };
  if (elapsedMs >= typicalMs) return { kind: "slow" };
  return { kind: "on-track", fraction: Math.max(0, elapsedMs) / typicalMs, remainingMs: typicalMs - Math.max(0, elapsedMs) };
}

/** "a few seconds", "about 30 seconds", "about a minute", "about 4 minutes": a guess, worded as one. */
export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 10) return "a few seconds";
  if (seconds < 45) return `about ${Math.max(10, Math.round(seconds / 10) * 10)} seconds`;
  if (seconds < 90) return "about a minute";
  if (seconds < 60 * 60) return `about ${Math.round(seconds / 60)} minutes`;
  const hours = Math.round(seconds / 3600);
  return hours === 1 ? "about an hour" : `about ${hours} hours`;
}
