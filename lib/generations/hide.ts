// Deleting from the gallery is a soft delete: the row, its credits and its
// delivery log stay for accounting, and a task still in progress keeps being
// followed (callbacks, polling and the cron do not look at deletedAt), so its
// outcome is recorded even though nobody sees it. Only its owner (and /admin)
// can still open it; the change is announced so that every other tab showing
// it (the GALLERY_SCOPE=shared showcase) drops the card.
import "server-only";
import { prisma } from "@/lib/db";
import { announceGenerationRow } from "./publish-change";

/**
 * "hidden" by this call, or "already_hidden" by an earlier one (deleting twice
 * is not an error); "not_found" when it does not exist or is not this owner's
 * (a showcase card of someone else's, with GALLERY_SCOPE=shared).
 */
export async function hideGeneration({ id, ownerId }: { id: string; ownerId: string }): Promise<"hidden" | "already_hidden" | "not_found"> {
  const [row] = await prisma.generation.updateManyAndReturn({
    where: { id, ownerId, deletedAt: null },
    data: { deletedAt: new Date() },
    select: { id: true, state: true, updatedAt: true, ownerId: true },
  });
  if (row) {
    await announceGenerationRow(row);
    return "hidden";
  }
  return (await prisma.generation.count({ where: { id, ownerId } })) === 1 ? "already_hidden" : "not_found";
}
