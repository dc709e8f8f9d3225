// An owner's ledger as a history, newest first: each row with what it means
// to them. A hold is "pending" until its generation settles; a capture says
// what the generation cost (its hold less what came back); a release, that
// the hold came back whole.
import "server-only";
import { prisma } from "@/lib/db";
import type { CreditEntryKind } from "@/lib/generated/prisma/client";
import { ledgerKey } from "./ledger";

export type CreditHistoryEntry = {
  id: number;
  kind: CreditEntryKind;
  /** The row's effect on the balance, in whole credits. */
  amount: number;
  createdAt: Date;
  generationId: string | null;
  checkoutSessionId: string | null;
  note: string | null;
  /** Holds: still held by a generation in flight. */
  pending?: boolean;
  /** Captures: what the generation cost. */
  charged?: number;
  /** Adjustments: the claim's take-back of a kept guest's unspent welcome grant, not the operator's hand. */
  keptGuestWelcome?: boolean;
};

export async function listCreditHistory({ ownerId, limit = 50 }: { ownerId: string; limit?: number }): Promise<CreditHistoryEntry[]> {
  const rows = await prisma.creditEntry.findMany({
    // Without the 0-credit rows that record a kept guest's hold came back while nothing was owed of it (owed.ts).
    where: { ownerId, NOT: { kind: "ADJUSTMENT", amount: 0 } },
    orderBy: { id: "desc" },
    take: Math.min(Math.max(1, limit), 200),
    select: { id: true, kind: true, amount: true, createdAt: true, generationId: true, checkoutSessionId: true, note: true, idempotencyKey: true },
  });
  const generationIds = [...new Set(rows.flatMap((r) => (r.generationId && (r.kind === "HOLD" || r.kind === "CAPTURE") ? [r.generationId] : [])))];
  // The holds and settlements of the generations on this page, wherever they fall in the history.
  const related = generationIds.length
    ? await prisma.creditEntry.findMany({
        where: { generationId: { in: generationIds }, kind: { in: ["HOLD", "CAPTURE", "RELEASE"] } },
        select: { kind: true, amount: true, generationId: true },
      })
    : [];
  const holds = new Map(related.filter((r) => r.kind === "HOLD").map((r) => [r.generationId!, -r.amount]));
  const settled = new Set(related.filter((r) => r.kind !== "HOLD").map((r) => r.generationId!));
  return rows.map(({ idempotencyKey, ...row }) => {
    if (row.kind === "HOLD") return { ...row, pending: !settled.has(row.generationId!) };
    if (row.kind === "CAPTURE") return { ...row, charged: (holds.get(row.generationId!) ?? row.amount) - row.amount };
    if (row.kind === "ADJUSTMENT" && idempotencyKey.startsWith(ledgerKey.keptGuestWelcome(""))) return { ...row, keptGuestWelcome: true };
    return row;
  });
}
