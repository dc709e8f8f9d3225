// The app's own record of how long generations took, read for typical completion times:
// recent successes, grouped by model and duration.
import "server-only";
import { prisma } from "@/lib/db";
import { isRecord, safeJsonParse } from "@/lib/http/json";
import { COMPLETION_SAMPLES, completionTimeKey, typicalDurationMs } from "./completion-time";

/** Rows read per call: enough for COMPLETION_SAMPLES of the few models a gallery mixes, bounded at any table size. */
const HISTORY_ROWS = 400;

export type CompletionTimes = Record<string, number>;

/** Typical completion time in ms per completionTimeKey(model, input); keys without history are absent. */
export async function getCompletionTimes(): Promise<CompletionTimes> {
  const rows = await prisma.generation.findMany({
    where: { state: "SUCCESS", completedAt: { not: null } },
    orderBy: [{ completedAt: "desc" }],
    take: HISTORY_ROWS,
    select: { model: true, input: true, createdAt: true, completedAt: true },
  });
  const samples = new Map<string, number[]>();
  for (const row of rows) {
    const input = safeJsonParse(row.input);
    const key = completionTimeKey(row.model, isRecord(input) ? input : {});
    const list = samples.get(key) ?? [];
    if (list.length < COMPLETION_SAMPLES) list.push(row.completedAt!.getTime() - row.createdAt.getTime());
    samples.set(key, list);
  }
  const times: CompletionTimes = {};
  for (const [key, list] of samples) {
    const typical = typicalDurationMs(list);
    if (typical !== null) times[key] = typical;
  }
  return times;
}
