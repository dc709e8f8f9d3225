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

const NOT_SHARED = { shareKey: null, shareSeed: null, sharedAt: null } as const;

/**
 * Shares the owner's comparison under a new public link (`key`, the hash of
 * its token, and `seed`: lib/sharing/share-token.ts); an earlier link of it
 * is replaced, so it stops working. Conditional: the owner's own, with at
 * least one Ready video not deleted; null when nothing matched.
 */
export async function shareBatchRow({
  id,
  ownerId,
  key,
  seed,
  showPrompt,
  now = new Date(),
}: {
  id: string;
  ownerId: string;
  key: string;
  seed: string;
  showPrompt: boolean;
  now?: Date;
}): Promise<Date | null> {
  const { count } = await prisma.batch.updateMany({
    where: { id, ownerId, generations: { some: { state: "SUCCESS", deletedAt: null } } },
    data: { shareKey: key, shareSeed: seed, sharedAt: now, shareShowsPrompt: showPrompt },
  });
  return count === 1 ? now : null;
}

/** Stops sharing: the link's hash is gone, so its page and files are a 404 from the next request on. True when the owner has this batch, shared or not. */
export async function unshareBatchRow({ id, ownerId }: { id: string; ownerId: string }): Promise<boolean> {
  const { count } = await prisma.batch.updateMany({ where: { id, ownerId }, data: NOT_SHARED });
  return count === 1;
}
