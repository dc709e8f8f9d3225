// The one publish point of the live gallery, beside the writes: every write
// that changes what a gallery shows (a state change, through updateGenerationIf,
// or a new row) announces "generation X changed" to every open stream.
import "server-only";
import { prisma } from "@/lib/db";
import { publishGenerationChange } from "@/lib/events";

/** Reads what the event carries (the state and time just written, the owner for filtering) and publishes it. */
export async function announceGenerationChange({ id }: { id: string }): Promise<void> {
  try {
    const row = await prisma.generation.findUnique({ where: { id }, select: { id: true, state: true, updatedAt: true } });
    if (!row) return;
    // Owners (#15): `ownerId: row.ownerId`, once generations have one.
    await publishGenerationChange({ id: row.id, state: row.state, updatedAt: row.updatedAt.toISOString(), ownerId: null });
  } catch (error) {
    // The write itself succeeded; browsers catch up by their safety-net poll.
    console.warn(`[framehook] could not announce the change of ${id}:`, error);
  }
}
