// What each generation took from its owner's credits (the kit's ledger, not
// the gateway's figure), as its card shows it: read for a whole page of
// generations in one statement, or worked out from what the outcome write
// settled without a read.
import "server-only";
import { prisma } from "@/lib/db";
import type { WrittenOutcome } from "@/lib/database/outcome-write";
import type { CreditCharge } from "./generation";

type LedgerRow = { generationId: string | null; kind: string; amount: number };

/** Each listed generation's charge; a generation with no hold is absent. One read, however many ids. */
export async function readCreditCharges(generationIds: readonly string[]): Promise<Map<string, CreditCharge>> {
  if (generationIds.length === 0) return new Map();
  const rows = await prisma.creditEntry.findMany({
    where: { generationId: { in: [...new Set(generationIds)] }, kind: { in: ["HOLD", "CAPTURE", "RELEASE"] } },
    select: { generationId: true, kind: true, amount: true },
  });
  return chargesOf(rows);
}

/**
 * A hold row, and at most one capture or release (the `settles` column is
 * unique): held while there is none; a capture gives back what the hold did
 * not cost, so what was charged is the hold less that; a release gives it all back.
 */
export function chargesOf(rows: readonly LedgerRow[]): Map<string, CreditCharge> {
  const byGeneration = new Map<string, { hold?: number; capture?: number; released?: boolean }>();
  for (const { generationId, kind, amount } of rows) {
    if (!generationId) continue;
    const entry = byGeneration.get(generationId) ?? byGeneration.set(generationId, {}).get(generationId)!;
    if (kind === "HOLD") entry.hold = -amount;
    else if (kind === "CAPTURE") entry.capture = amount;
    else if (kind === "RELEASE") entry.released = true;
  }
  const charges = new Map<string, CreditCharge>();
  for (const [id, { hold, capture, released }] of byGeneration) {
    if (hold === undefined) continue;
    charges.set(
      id,
      released ? { status: "released", credits: hold } : capture !== undefined ? { status: "captured", credits: hold - capture } : { status: "held", credits: hold },
    );
  }
  return charges;
}

/**
 * The charge an outcome write settled, from what it returned: a release gives
 * back the whole hold; a capture at the gateway's figure (`charge`, whole
 * credits) gives back the rest. Undefined when the write alone does not say
 * (a capture at the hold: no figure, or one above it), so the caller reads it.
 */
export function chargeSettledBy(settled: NonNullable<WrittenOutcome["settled"]>, charge: number | null): CreditCharge | undefined {
  if (settled.kind === "RELEASE") return { status: "released", credits: settled.amount };
  if (charge === null || settled.overHold) return undefined;
  return { status: "captured", credits: charge };
}

/** One generation's charge, null when it held nothing. */
export async function readCreditCharge(generationId: string): Promise<CreditCharge | null> {
  return (await readCreditCharges([generationId])).get(generationId) ?? null;
}
