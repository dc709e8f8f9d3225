// Conditional single-row updates, the building block of the single writer,
// the polling lease and submit: `UPDATE … WHERE id = ? AND <condition>`.
//
// updateManyAndReturn, not update + P2025: "nothing matched" is no row,
// not an error. (BENCHMARKS.md measured `update`, a bare
// `UPDATE … RETURNING`, about 1.5× faster, when each transaction also
// reopened a connection; the reason once given for keeping the transaction,
// a bare write keeping SQLite's write lock after SQLITE_BUSY, was the
// driver's and is fixed where the connection lives:
// lib/database/sqlite-connection.ts, docs/RELIABILITY.md.)
import "server-only";
import { prisma } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import { announceGenerationRow } from "./publish-change";

/** True if the row matched `where` (its id and condition) and was updated; a state change is announced to live galleries. */
export async function updateGenerationIf({
  where,
  data,
}: {
  where: Prisma.GenerationWhereInput & { id: string };
  data: Prisma.GenerationUpdateManyMutationInput;
}): Promise<boolean> {
  // One `UPDATE … RETURNING`: the row it returns is what the live gallery's
  // event carries, so a state change is published beside the write (#16) without a second read.
  const [row] = await prisma.generation.updateManyAndReturn({ where, data, select: { id: true, state: true, updatedAt: true, ownerId: true } });
  if (row && data.state !== undefined) await announceGenerationRow(row);
  return row !== undefined;
}
