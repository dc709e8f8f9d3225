// Reading comparisons, always as their owner: a batch and its videos (each a
// generation, read as the gallery reads it), in the order they were asked for.
import "server-only";
import { prisma } from "@/lib/db";
import { kickMediaCopies } from "@/lib/copies/kick";
import { readCreditCharges } from "@/lib/generations/charges";
import { refreshWithinBudget } from "@/lib/generations/list-fresh";
import { toGeneration, type Generation } from "@/lib/generations/generation";
import { shareLinkOf, type ShareLink } from "@/lib/sharing/share-link";

export type Batch = {
  id: string;
  prompt: string;
  /** The video the owner marked as their pick, if it is still in the batch. */
  pickId: string | null;
  createdAt: string;
  /** Its public link while the owner shares it (lib/sharing); the owner is the only reader of a Batch. */
  share: ShareLink | null;
  /** Its videos not deleted from the gallery, in the order the models were asked for. */
  generations: Generation[];
};

/** Null when the batch does not exist or is not this owner's: callers answer 404 either way. */
export async function getBatch({ id, ownerId }: { id: string; ownerId: string }): Promise<Batch | null> {
  const row = await prisma.batch.findFirst({
    where: { id, ownerId },
    include: { generations: { where: { deletedAt: null }, include: { mediaCopies: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  if (!row) return null;
  const charges = await readCreditCharges(row.generations.map((g) => g.id));
  const now = Date.now();
  const generations = row.generations.map((g) => toGeneration(g, now, charges.get(g.id) ?? null));
  return {
    id: row.id,
    prompt: row.prompt,
    pickId: generations.some((g) => g.id === row.pickId) ? row.pickId : null,
    createdAt: row.createdAt.toISOString(),
    share: shareLinkOf(row, "batch"),
    generations,
  };
}

/** The batch holding a key, for a repeated submission; every video, deleted ones too. */
export function findBatchByKey({ idempotencyKey }: { idempotencyKey: string }) {
  return prisma.batch.findUnique({
    where: { idempotencyKey },
    include: { generations: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
}

/** The batch, after asking the gateway (within the reads' budget) about its videos nobody has heard from lately. */
export async function getBatchFresh(params: { id: string; ownerId: string }): Promise<Batch | null> {
  const batch = await getBatch(params);
  if (!batch) return null;
  kickMediaCopies(batch.generations);
  const pending = batch.generations.filter((g) => g.state === "PENDING").map((g) => g.id);
  if (pending.length === 0) return batch;
  return (await refreshWithinBudget(pending)) ? getBatch(params) : batch;
}
