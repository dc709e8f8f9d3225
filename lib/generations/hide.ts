// Deleting from the gallery is a soft delete: the row, its credits and its
// delivery log stay for accounting, and a task still in progress keeps being
// followed (callbacks, polling and the cron do not look at deletedAt), so its
// outcome is recorded even though nobody sees it.
import "server-only";
import { prisma } from "@/lib/db";

/**
 * "hidden" by this call, or "already_hidden" by an earlier one (deleting twice
 * is not an error); "not_found" when it does not exist or is not this owner's
 * (a showcase card of someone else's, with GALLERY_SCOPE=shared).
 */
export async function hideGeneration({ id, ownerId }: { id: string; ownerId: string }): Promise<"hidden" | "already_hidden" | "not_found"> {
  const { count } = await prisma.generation.updateMany({ where: { id, ownerId, deletedAt: null }, data: { deletedAt: new Date() } });
  if (count === 1) return "hidden";
  return (await prisma.generation.count({ where: { id, ownerId } })) === 1 ? "already_hidden" : "not_found";
}
