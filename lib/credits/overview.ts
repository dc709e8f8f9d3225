// The operator's view of the kit's credits: what was sold (money and credits,
// less refunds), what users hold and were charged, what is owed, beside what
// the generations cost at the gateway, all time. Read by /admin.
import "server-only";
import { prisma } from "@/lib/db";

export type CreditsOverview = {
  /** Money taken per currency, in minor units: paid, and refunded of it. */
  sales: { currency: string; paid: number; refunded: number; purchases: number }[];
  /** Credits by kind of ledger row, as the rows' sums (captures are what the holds gave back). */
  creditsSold: number;
  creditsGranted: number;
  /** What successes cost users: their holds less what the captures gave back. */
  creditsCharged: number;
  creditsHeld: number;
  /** Refunded or disputed credits already spent, not yet taken from new credits. */
  creditsOwed: number;
  /** What succeeded generations cost at the gateway (its credits, USD at this gateway). */
  gatewaySpent: number;
};

export async function readCreditsOverview(): Promise<CreditsOverview> {
  const [sales, owed, kinds, captured, held, gateway] = await Promise.all([
    prisma.purchase.groupBy({ by: ["currency"], _sum: { amountTotal: true, amountRefunded: true }, _count: true }),
    prisma.purchase.aggregate({ _sum: { creditsOwed: true, creditsCollected: true } }),
    prisma.creditEntry.groupBy({ by: ["kind"], _sum: { amount: true } }),
    // The holds of captured generations: what they held, against what the captures gave back.
    prisma.$queryRaw<{ held: bigint | number | null }[]>`
      SELECT SUM(-h."amount") AS "held" FROM "CreditEntry" h
      WHERE h."kind" = 'HOLD' AND EXISTS (SELECT 1 FROM "CreditEntry" c WHERE c."settles" = h."generationId" AND c."kind" = 'CAPTURE')`,
    prisma.$queryRaw<{ held: bigint | number | null }[]>`
      SELECT SUM(-h."amount") AS "held" FROM "CreditEntry" h
      WHERE h."kind" = 'HOLD' AND NOT EXISTS (SELECT 1 FROM "CreditEntry" s WHERE s."settles" = h."generationId")`,
    prisma.generation.aggregate({ where: { state: "SUCCESS" }, _sum: { creditsConsumed: true } }),
  ]);
  const sum = (kind: string) => Number(kinds.find((k) => k.kind === kind)?._sum.amount ?? 0);
  return {
    sales: sales.map((s) => ({ currency: s.currency, paid: Number(s._sum.amountTotal ?? 0), refunded: Number(s._sum.amountRefunded ?? 0), purchases: s._count })),
    // Less what refunds and disputes took back, and what was collected of what they left owed.
    creditsSold: sum("PURCHASE") + sum("REFUND") + sum("DISPUTE") + sum("COLLECT"),
    creditsGranted: sum("GRANT") + sum("ADJUSTMENT"),
    creditsCharged: Number(captured[0]?.held ?? 0) - sum("CAPTURE"),
    creditsHeld: Number(held[0]?.held ?? 0),
    creditsOwed: Number(owed._sum.creditsOwed ?? 0) - Number(owed._sum.creditsCollected ?? 0),
    gatewaySpent: Math.round(Number(gateway._sum.creditsConsumed ?? 0) * 10_000) / 10_000,
  };
}
