// What must hold after every fault: no task lost (each task the gateway ran
// is known to exactly one generation, and every generation ends), none charged
// twice (one gateway task and at most one applied outcome per generation,
// the app's credits equal to the gateway's), none stuck PENDING.
import { expect } from "vitest";
import type { SimulatorControl } from "../../support/simulator-control";

type Prisma = typeof import("@/lib/db").prisma;

export type FaultTally = { generations: number; tasks: number; lost: number; chargedTwice: number; stuckPending: number };

export async function expectNothingLost({
  prisma,
  simulator,
  marker,
  ids,
}: {
  prisma: Prisma;
  simulator: SimulatorControl;
  marker: string;
  ids: string[];
}): Promise<FaultTally> {
  const rows = await prisma.generation.findMany({ where: { id: { in: ids } }, include: { deliveries: true } });
  const tasks = await simulator.tasks(marker);
  expect(rows).toHaveLength(ids.length);

  const stuckPending = rows.filter((r) => r.state === "PENDING" || r.state === "SUBMITTING");
  const lost = tasks.filter((t) => rows.filter((r) => r.taskId === t.taskId).length !== 1);
  const byGeneration = new Map(rows.map((r) => [r.id, tasks.filter((t) => t.prompt === r.prompt)]));
  const chargedTwice = rows.filter(
    (r) => (byGeneration.get(r.id)?.length ?? 0) > 1 || r.deliveries.filter((d) => d.outcome === "APPLIED").length > 1,
  );
  expect(stuckPending.map((r) => `${r.id}:${r.state}`)).toEqual([]);
  expect(lost.map((t) => `${t.taskId}:${t.state}`)).toEqual([]);
  expect(chargedTwice.map((r) => r.id)).toEqual([]);

  for (const row of rows) {
    const task = tasks.find((t) => t.taskId === row.taskId);
    if (row.state === "SUCCESS") expect(row.creditsConsumed).toBe(task?.creditsConsumed);
    else expect(row.creditsConsumed).toBe(0);
  }
  // What the user is shown as spent is what the gateway charged, to the credit.
  const appCharged = rows.reduce((sum, r) => sum + (r.creditsConsumed ?? 0), 0);
  const gatewayCharged = tasks.filter((t) => t.state === "SUCCESS").reduce((sum, t) => sum + t.creditsConsumed, 0);
  expect(appCharged).toBeCloseTo(gatewayCharged, 6);
  return { generations: rows.length, tasks: tasks.length, lost: lost.length, chargedTwice: chargedTwice.length, stuckPending: stuckPending.length };
}
