// Conditional single-row updates, the building block of the single writer,
// the polling lease and submit: `UPDATE … WHERE id = ? AND <condition>`.
//
// Why updateMany and not update + P2025: Prisma runs `update` as a bare
// `UPDATE … RETURNING`, about 1.5× faster than updateMany's implicit
// transaction (BENCHMARKS.md). But with @libsql/client, a bare write that
// once failed with SQLITE_BUSY leaves SQLite's write lock held after its next
// success, until a transaction retires that connection; updateMany's
// transaction does exactly that. With bare updates only, other writers (a
// second instance, a migration) stayed locked out (tests/faults/callbacks-refused).
import "server-only";
import { prisma } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import { announceGenerationChange } from "./publish-change";

/** True if the row matched `where` (its id and condition) and was updated; a state change is announced to live galleries. */
export async function updateGenerationIf({
  where,
  data,
}: {
  where: Prisma.GenerationWhereInput & { id: string };
  data: Prisma.GenerationUpdateManyMutationInput;
}): Promise<boolean> {
  const { count } = await prisma.generation.updateMany({ where, data });
  // Live gallery (#16): every state change is published from here, beside the write.
  if (count === 1 && data.state !== undefined) await announceGenerationChange({ id: where.id });
  return count === 1;
}
