// Generic guards for JSON of unknown shape (gateway bodies, stored columns):
// nothing here knows the domain.

/** A plain object: not null, not an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The parsed value, or undefined when `text` is not JSON. */
export function safeJsonParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
