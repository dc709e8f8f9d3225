// The operator's view of the kit's credits: what was sold (money and credits,
// less refunds), what users hold and were charged, what is owed, beside what
// the generations cost at the gateway, all time, and whether they add up to
// every owner's balance. Read by /admin.
import "server-only";
import { prisma } from "@/lib/db";

export type CreditsOverview = {
  /** Money taken per currency, in minor units: paid, and refunded of it. */
  sales: { currency: string; paid: number; refunded: number; purchases: number }[];
  /** Credits by kind of ledger row, as the rows' sums (captures are what the holds gave back). */
  creditsSold: number;
  /** Welcome grants, and the operator's adjustments (grants and takes, signed) apart. */
  creditsGranted: number;
  creditsAdjusted: number;
  /** What successes cost users: their holds less what the captures gave back. */
  creditsCharged: number;
  creditsHeld: number;
  /** Refunded or disputed credits already spent, not yet taken from new credits. */
  creditsOwed: number;
  /** What succeeded generations cost at the gateway (its credits, USD at this gateway). */
  gatewaySpent: number;
  /** Every owner's balance added up: the whole ledger's sum. */
  balances: number;
  /**
   * What the figures above leave unexplained: balances − (sold + granted +
   * adjusted − charged − held). 0 when every hold was captured or released
   * once and nothing was written outside the ledger's kinds: anything else is
   * a defect to look into.
   */
  unreconciled: number;
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
  // Less what refunds and disputes took back, and what was collected of what they left owed.
  const creditsSold = sum("PURCHASE") + sum("REFUND") + sum("DISPUTE") + sum("COLLECT");
  const creditsGranted = sum("GRANT");
  const creditsAdjusted = sum("ADJUSTMENT");
  const creditsCharged = Number(captured[0]?.held ?? 0) - sum("CAPTURE");
  const creditsHeld = Number(held[0]?.held ?? 0);
  const balances = kinds.reduce((total, k) => total + Number(k._sum.amount ?? 0), 0);
  return {
    sales: sales.map((s) => ({ currency: s.currency, paid: Number(s._sum.amountTotal ?? 0), refunded: Number(s._sum.amountRefunded ?? 0), purchases: s._count })),
    creditsSold,
    creditsGranted,
    creditsAdjusted,
    creditsCharged,
    creditsHeld,
    creditsOwed: Number(owed._sum.creditsOwed ?? 0) - Number(owed._sum.creditsCollected ?? 0),
    gatewaySpent: Math.round(Number(gateway._sum.creditsConsumed ?? 0) * 10_000) / 10_000,
    balances,
    unreconciled: balances - (creditsSold + creditsGranted + creditsAdjusted - creditsCharged - creditsHeld),
  };
}
