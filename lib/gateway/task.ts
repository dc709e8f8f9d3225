// The gateway's task resource (spec §2) and the callback bodies real gateways
// send, normalised into one TaskSnapshot.
import { z } from "zod";
import { safeJsonParse } from "@/lib/http/json";

export const TASK_STATES = ["PENDING", "SUCCESS", "FAILURE"] as const;
export type TaskState = (typeof TASK_STATES)[number];

export type TaskSnapshot = {
  taskId: string;
  state: TaskState;
  /** At most MAX_RESULT_URLS, in the gateway's order. */
  resultUrls: string[];
  /** How many more http(s) URLs the gateway named past MAX_RESULT_URLS: counted, not kept. */
  droppedResultUrls?: number;
  creditsConsumed: number | null;
  failCode: string | null;
  failMessage: string | null;
  /** Whatever else the gateway said about the task, for the detail page: small, shallow JSON only (boundedMetadata). */
  metadata: Record<string, unknown>;
};

const stateSchema = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.enum(TASK_STATES));

const urlList = z.preprocess(
  (v) => (typeof v === "string" ? safeJsonParse(v) : v),
  z.array(z.string()),
);

/**
 * Result URLs kept (and copied) per task. A task makes one video, sometimes a
 * few; a body of 64 KB could name ~800, each a copy job of up to MEDIA_MAX_BYTES.
 */
export const MAX_RESULT_URLS = 16;

/** Far above any price in the spec (credits are USD, a task costs cents to dollars): a bigger number is not a charge. */
export const MAX_CREDITS = 100_000;
const creditsSchema = z
  .union([z.number(), z.string().regex(/^\d{1,12}(?:\.\d{1,12})?$/).transform(Number)])
  .pipe(z.number().finite().min(0).max(MAX_CREDITS));

/** The task as GET /api/generate/{taskId} returns it: state, resultUrls, creditsConsumed are named by the spec. */
export const taskSchema = z.looseObject({
  // No NUL: PostgreSQL's text cannot hold one, and no real task id has one.
  taskId: z.string().min(1).max(200).regex(/^[^\u0000]+$/),
  state: stateSchema,
  // Only taskId and state must parse: an odd value elsewhere is dropped, so it
  // can never keep a task from reaching its terminal state.
  resultUrls: urlList.nullish().catch(null),
  // A number or a plain decimal string, never coerced: "", false, [] or "0x1F"
  // are not a charge, so they read as "not said" and a SUCCESS is confirmed.
  creditsConsumed: creditsSchema.nullish().catch(null),
  failCode: z.union([z.string(), z.number()]).nullish().catch(null),
  failMsg: z.string().nullish().catch(null),
});

export function toTaskSnapshot(task: z.infer<typeof taskSchema>): TaskSnapshot {
  const { taskId, state, resultUrls, creditsConsumed, failCode, failMsg, ...rest } = task;
  const urls = (resultUrls ?? []).filter(isHttpUrl);
  return {
    taskId,
    state,
    resultUrls: urls.slice(0, MAX_RESULT_URLS),
    droppedResultUrls: Math.max(0, urls.length - MAX_RESULT_URLS),
    creditsConsumed: creditsConsumed ?? null,
    failCode: failCode == null ? null : withoutNul(String(failCode)),
    failMessage: failMsg == null ? null : withoutNul(failMsg),
    metadata: boundedMetadata(rest),
  };
}

/** What is kept of the fields the spec does not name: nested at most this deep… */
export const METADATA_MAX_DEPTH = 8;
/** …and at most this large as JSON, all fields together. */
export const METADATA_MAX_BYTES = 8 * 1024;

/**
 * The task's other fields, field by field, as long as each is shallow and all
 * of them fit the budget. Their shape is not the spec's, so any of them may be
 * hostile: JSON thousands of levels deep parses, but overflows the stack of
 * anything that walks it (JSON.stringify included). Such a field is dropped,
 * like any odd value, and never keeps a task from its terminal state or the
 * useful fields beside it from being kept.
 */
export function boundedMetadata(fields: Record<string, unknown>): Record<string, unknown> {
  const kept: [string, unknown][] = [];
  let left = METADATA_MAX_BYTES - "{}".length;
  for (const [key, value] of Object.entries(fields)) {
    const size = jsonSize(key, 0, left) + ":".length + jsonSize(value, METADATA_MAX_DEPTH, left) + (kept.length > 0 ? ",".length : 0);
    if (size > left) continue;
    kept.push([key, value]);
    left -= size;
  }
  // fromEntries defines each key as data, so a field named "__proto__" stays a field.
  return Object.fromEntries(kept);
}

/**
 * The length of `value` as JSON, or Infinity once it is nested deeper than
 * `depth` or longer than `budget`: the walk stops there, so its own recursion
 * is as shallow as `depth` and it visits no more values than fit in `budget`.
 */
function jsonSize(value: unknown, depth: number, budget: number): number {
  if (value === null || typeof value !== "object") return Buffer.byteLength(JSON.stringify(value) ?? "null");
  if (depth === 0) return Infinity;
  let size = "[]".length;
  let first = true;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    size += (first ? 0 : ",".length) + (typeof key === "string" ? jsonSize(key, 0, budget) + ":".length : 0);
    size += jsonSize(item, depth - 1, budget - size);
    if (size > budget) return Infinity;
    first = false;
  }
  return size;
}

/** PostgreSQL's text cannot store U+0000: a gateway's message is kept without it. */
const withoutNul = (text: string) => text.replaceAll("\u0000", "");

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
