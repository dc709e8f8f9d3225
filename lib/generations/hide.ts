// Deleting from the gallery is a soft delete: the row, its credits and its
// delivery log stay for accounting, and a task still in progress keeps being
// followed (callbacks, polling and the cron do not look at deletedAt), so its
// outcome is recorded even though nobody sees it.
import "server-only";
import { prisma } from "@/lib/db";

/** True if this call hid it; false if it was already hidden, is not the owner's, or does not exist. */
export async function hideGeneration({ id, ownerId }: { id: string; ownerId: string }): Promise<boolean> {
  const { count } = await prisma.generation.updateMany({ where: { id, ownerId, deletedAt: null }, data: { deletedAt: new Date() } });
  return count === 1;
}
