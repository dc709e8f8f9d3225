// The delivery log: one row for every callback attempt and poll that reached
// a generation, with what came of it (the detail page's timeline).
import "server-only";
import { prisma } from "@/lib/db";
import type { DeliveryOutcome, DeliverySource } from "@/lib/generated/prisma/client";

const DETAIL_MAX_LENGTH = 300;

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
    data: { generationId, taskId, source, outcome, reportedState, detail: detail?.slice(0, DETAIL_MAX_LENGTH) },
    select: { id: true },
  });
  return id;
}
