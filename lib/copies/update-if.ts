// Conditional single-row updates of copy jobs: the lease, the fencing token
// and every state change go through `UPDATE … WHERE id = ? AND <condition>`,
// as lib/generations/store.ts does for generations (and for the same
// reason, updateMany rather than update).
import "server-only";
import { prisma } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";

/** True if the row matched `where` (its id and condition) and was updated. */
export async function updateMediaCopyIf({
  where,
  data,
}: {
  where: Prisma.MediaCopyWhereInput & { id: string };
  data: Prisma.MediaCopyUpdateManyMutationInput;
}): Promise<boolean> {
  const { count } = await prisma.mediaCopy.updateMany({ where, data });
  return count === 1;
}
