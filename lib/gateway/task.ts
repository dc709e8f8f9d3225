// The gateway's task resource (spec §2) and the callback bodies real gateways
// send, normalised into one TaskSnapshot.
import { z } from "zod";

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
  /** Whatever else the gateway said about the task, for the detail page. */
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
    metadata: rest,
  };
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

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function safeJsonParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
