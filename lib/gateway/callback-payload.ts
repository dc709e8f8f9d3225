// Callback bodies differ between gateways: a flat task, a
// `{code, msg, data}` envelope, `resultJson` as a JSON string. This module
// turns any of them into a TaskSnapshot, or says the body is only a hint.
import { isRecord, safeJsonParse } from "@/lib/http/json";
import { taskSchema, toTaskSnapshot, type TaskSnapshot } from "./task";

export type CallbackReading =
  /** Complete: can be applied as it is. */
  | { kind: "complete"; snapshot: TaskSnapshot }
  /** Names a task but is incomplete or of an unknown shape: confirm by GET. */
  | { kind: "hint"; taskId: string | null; reason: string }
  | { kind: "malformed"; reason: string };

type Json = Record<string, unknown>;

export function readCallbackBody(text: string): CallbackReading {
  const parsed = safeJsonParse(text);
  if (!isRecord(parsed)) return { kind: "malformed", reason: "body is not a JSON object" };

  const task = unwrap(parsed);
  const candidate = taskSchema.safeParse(task);
  const taskId = pickString(task, ["taskId", "task_id", "id"]);
  if (!candidate.success) {
    return { kind: "hint", taskId, reason: "unrecognised callback shape" };
  }
  const snapshot = toTaskSnapshot(candidate.data);
  if (snapshot.state === "SUCCESS" && (snapshot.resultUrls.length === 0 || snapshot.creditsConsumed === null)) {
    return { kind: "hint", taskId: snapshot.taskId, reason: "SUCCESS without resultUrls or creditsConsumed" };
  }
  return { kind: "complete", snapshot };
}

/** Lifts the task out of an envelope and folds `resultJson` into `resultUrls`. */
function unwrap(body: Json): Json {
  const inner = isRecord(body.data) ? { ...body.data } : { ...body };
  if (inner.resultUrls === undefined && inner.resultJson !== undefined) {
    const result = typeof inner.resultJson === "string" ? safeJsonParse(inner.resultJson) : inner.resultJson;
    if (isRecord(result) && Array.isArray(result.resultUrls)) inner.resultUrls = result.resultUrls;
    delete inner.resultJson;
  }
  if (inner.taskId === undefined) {
    const id = pickString(inner, ["task_id", "id"]);
    if (id) inner.taskId = id;
  }
  if (inner.state === undefined && typeof inner.status === "string") inner.state = inner.status;
  return inner;
}

function pickString(obj: Json, keys: string[]): string | null {
  for (const key of keys) {
    const v = obj[key];
    if (typeof v === "string" && v.length > 0 && v.length <= 200) return v;
  }
  return null;
}
