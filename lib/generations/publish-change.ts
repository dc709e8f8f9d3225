// The one publish point of the live gallery, beside the writes: every write
// that changes what a gallery shows (a state change, through updateGenerationIf,
// or a new row) announces "generation X changed" to every open stream.
import "server-only";
import { prisma } from "@/lib/db";
import { publishGenerationChange } from "@/lib/events";
import type { GenerationState } from "@/lib/generated/prisma/client";

type Announced = { id: string; state: GenerationState; updatedAt: Date; ownerId: string };

/** Reads what the event carries (the state and time just written, the owner for filtering) and publishes it. */
export async function announceGenerationChange({ id }: { id: string }): Promise<void> {
  try {
    const row = await prisma.generation.findUnique({ where: { id }, select: { id: true, state: true, updatedAt: true, ownerId: true } });
    if (row) await announceGenerationRow(row);
  } catch (error) {
    // The write itself succeeded; browsers catch up by their safety-net poll.
    console.warn(`[framehook] could not announce the change of ${id}:`, error);
  }
}

/** Publishes a row the writer already holds (a new one): no read, and in the order of the writes. */
export function announceGenerationRow(row: Announced): Promise<void> {
  return publishGenerationChange({ id: row.id, state: row.state, updatedAt: row.updatedAt.toISOString(), ownerId: row.ownerId });
}
