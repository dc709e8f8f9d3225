// Conditional single-row updates, the building block of the single writer,
// the polling lease and submit: `UPDATE … WHERE id = ? AND <condition>`.
//
// updateMany, not update + P2025: "nothing matched" is a count of 0, not an
// error. (BENCHMARKS.md measured `update`, a bare `UPDATE … RETURNING`, about
// 1.5× faster, when each transaction also reopened a connection; the reason
// once given for keeping the transaction, a bare write keeping SQLite's write
// lock after SQLITE_BUSY, was the driver's and is fixed where the connection
// lives: lib/database/sqlite-connection.ts, docs/RELIABILITY.md.)
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
