// The comparison store: every write of a Batch row. Its generations are
// written by the generation store (insertGenerationBatch), which calls
// createBatchIn inside the transaction that holds their credits.
import "server-only";
import { prisma, type Transaction } from "@/lib/db";

export function createBatchIn(tx: Transaction, data: { ownerId: string; prompt: string; idempotencyKey?: string; requestHash?: string }) {
  return tx.batch.create({ data, select: { id: true } });
}

/**
 * Marks the owner's pick among the batch's videos (null clears it).
 * Conditional: the batch is the owner's and the pick one of its own
 * generations; false when nothing matched (the caller answers 404 or 422).
 */
export async function setBatchPick({ id, ownerId, pickId }: { id: string; ownerId: string; pickId: string | null }): Promise<boolean> {
  const { count } = await prisma.batch.updateMany({
    where: { id, ownerId, ...(pickId === null ? {} : { generations: { some: { id: pickId, deletedAt: null } } }) },
    data: { pickId },
  });
  return count === 1;
}

/** A key older than its answer's lifetime is released for reuse (as generation keys are). */
export async function releaseBatchKey({ id, idempotencyKey }: { id: string; idempotencyKey: string }): Promise<void> {
  await prisma.batch.updateMany({ where: { id, idempotencyKey }, data: { idempotencyKey: null } });
}
