// The delivery log: one row for every callback attempt and poll that reached
// a generation, with what came of it (the detail page's timeline). Reports
// that change the generation are recorded by the outcome write itself
// (apply-task-snapshot.ts); this records the ones that change nothing.
import "server-only";
import { deliveryDetail } from "@/lib/database/outcome-write";
import { prisma } from "@/lib/db";
import type { DeliveryOutcome, DeliverySource } from "@/lib/generated/prisma/client";

export async function recordDelivery({
  generationId,
  taskId,
  source,
  outcome,
  reportedState,
  detail,
}: {
  generationId: string;
  taskId: string;
  source: DeliverySource;
  outcome: DeliveryOutcome;
  reportedState?: string;
  detail?: string;
}): Promise<number> {
  const { id } = await prisma.delivery.create({
    data: { generationId, taskId, source, outcome, reportedState, detail: deliveryDetail(detail) },
    select: { id: true },
  });
  return id;
}
