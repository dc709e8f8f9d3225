// 2. A duplicate storm: 1 000 deliveries for 100 tasks, the 10 copies of each
// task in flight at the same time. The single writer must make exactly one
// transition and one charge per task, and answer every copy 2xx.
import { runLoad } from "../cannon";
import { seedPending, successBody, tallyOutcomes, type BenchDb } from "../db";
import type { Section } from "../report";
import type { Stack } from "../stack";
import { describeCodes } from "./callback-receiver";

const TASKS = 100;
const COPIES = 10;
const CREDITS_PER_TASK = 0.704;

export async function benchDuplicateStorm(stack: Stack, db: BenchDb): Promise<Section> {
  const tasks = await seedPending(db, { prefix: "dup", count: TASKS, secret: stack.webhookSecret });
  // Task-major order over 100 connections: the 10 copies of a task go out together.
  const items = tasks.flatMap((t) => Array.from({ length: COPIES }, () => ({ path: `/api/webhooks/gateway?token=${encodeURIComponent(t.token)}`, body: successBody(t, stack.simulatorUrl) })));
  const storm = await runLoad(
    {
      url: `${stack.appUrl}/api/webhooks/gateway`,
      connections: TASKS,
      amount: items.length,
      method: "POST",
      headers: { "content-type": "application/json" },
      items,
    },
    { workDir: stack.workDir, timeoutMs: 120_000 },
  );
  const tally = await tallyOutcomes(db, tasks.map((t) => t.id));
  const answered2xx = Object.entries(storm.statusCodes).reduce((n, [code, count]) => (code.startsWith("2") ? n + count : n), 0);
  const applied = tally.outcomes.APPLIED ?? 0;
  const duplicates = tally.outcomes.DUPLICATE ?? 0;
  const expectedCredits = TASKS * CREDITS_PER_TASK;

  return {
    title: "2. Duplicate storm",
    setup: `${TASKS} PENDING generations seeded; ${TASKS * COPIES} complete \`SUCCESS\` callbacks (${COPIES} identical copies per task) over ${TASKS} connections, ordered so that all copies of a task are in flight together. The baseline of each count is the only correct value.`,
    figures: [
      { label: "Deliveries answered 2xx", value: answered2xx, unit: "", baseline: { label: "sent", value: TASKS * COPIES } },
      { label: "Transitions (APPLIED deliveries)", value: applied, unit: "", baseline: { label: "tasks", value: TASKS } },
      { label: "Duplicates recorded (DUPLICATE deliveries)", value: duplicates, unit: "", baseline: { label: "copies − tasks", value: TASKS * (COPIES - 1) } },
      { label: "Generations charged", value: tally.charged, unit: "", baseline: { label: "tasks", value: TASKS } },
      { label: "Credits recorded", value: Number(tally.creditsTotal.toFixed(3)), unit: "", baseline: { label: `${TASKS} × ${CREDITS_PER_TASK}`, value: expectedCredits } },
      { label: "Latency p99 of the storm", value: storm.p99, unit: "ms" },
    ],
    targets: [
      {
        label: "exactly 100 transitions and 100 charges",
        met: applied === TASKS && tally.appliedOnce === TASKS && tally.charged === TASKS && Math.abs(tally.creditsTotal - expectedCredits) < 1e-6,
        detail: `${applied} APPLIED (${tally.appliedOnce} tasks with exactly one), ${tally.charged} charged, ${tally.creditsTotal.toFixed(3)} credits; deliveries ${describeCodes(tally.outcomes)}`,
      },
      {
        label: "every delivery answered 2xx",
        met: answered2xx === TASKS * COPIES && storm.errors === 0 && storm.timeouts === 0,
        detail: `${answered2xx}/${TASKS * COPIES} (${describeCodes(storm.statusCodes)}; ${storm.errors} errors, ${storm.timeouts} timeouts)`,
      },
    ],
    notes: [
      `The conditional update (\`WHERE state = 'PENDING'\`) is what holds it: the first copy to reach the database makes the transition, the other nine find the row terminal and are recorded as DUPLICATE. The storm's latency (p99 ${storm.p99} ms) has the callback receiver's limits (benchmark 1): ${stack.engine === "sqlite" ? `${TASKS} connections queue on one database connection` : `${TASKS} connections share the app's pool of PostgreSQL connections`}.`,
    ],
  };
}
