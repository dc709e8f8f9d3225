// Conditional single-row updates through Prisma, for the writes that are not
// a task's outcome (the polling lease, submit, adoption's claim):
// `UPDATE … WHERE id = ? AND <condition>`. An outcome and its delivery row are
// one write of their own (apply-task-snapshot.ts, lib/database/outcome-write.ts).
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
  // event carries, so a state change is published beside the write without a second read.
  const [row] = await prisma.generation.updateManyAndReturn({ where, data, select: { id: true, state: true, updatedAt: true, ownerId: true } });
  if (row && data.state !== undefined) await announceGenerationRow(row);
  return row !== undefined;
}
