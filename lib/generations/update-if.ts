// Conditional single-row updates, the building block of the single writer,
// the polling lease and submit: `UPDATE … WHERE id = ? AND <condition>`.
//
// updateMany (updateManyAndReturn for a state change, whose row the live
// gallery's event needs), not update + P2025: "nothing matched" is a count
// of 0 or no row, not an error. (BENCHMARKS.md measured `update`, a bare
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
  if (data.state === undefined) {
    const { count } = await prisma.generation.updateMany({ where, data });
    return count === 1;
  }
  // A state change returns what the live gallery's event carries (one
  // `UPDATE … RETURNING`, no second read) and is published beside the write (#16).
  const [row] = await prisma.generation.updateManyAndReturn({ where, data, select: { id: true, state: true, updatedAt: true, ownerId: true } });
  if (row) await announceGenerationRow(row);
  return row !== undefined;
}
