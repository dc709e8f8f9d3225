// An owner's credits as they see them: the balance (a sum read in one
// statement; never below zero, since every write that takes credits checks it
// under the owner's lock), what generations in flight hold, and the welcome
// grant, made the first time either is shown or a submission holds credits.
import "server-only";
import { retryTransaction } from "@/lib/database/errors";
import { prisma } from "@/lib/db";
import { grantWelcomeLocked, lockCredits, readCreditBalance, readCreditSummary } from "./ledger";
import { welcomeGrantCredits } from "./pricing";

export type CreditBalance = { credits: number; held: number };

/** How long a balance read waits out a busy database before it fails. */
const BUSY_WAIT_MS = 5_000;

/** The owner's spendable credits, in one statement. */
export function creditBalance(ownerId: string): Promise<number> {
  return readCreditBalance(prisma, ownerId);
}

/**
 * The balance to show the owner. A read, except while a new owner has not
 * been welcomed, when the welcome grant is written (once, under the owner's
 * lock, within its client address's bound: `visitor`, lib/rate-limit
 * visitorKey) and the balance read again.
 */
export async function showCreditBalance({ ownerId, visitor }: { ownerId: string; visitor: string }): Promise<CreditBalance> {
  const summary = await readCreditSummary(prisma, ownerId);
  if (summary.welcomed || welcomeGrantCredits() <= 0) return { credits: summary.credits, held: summary.held };
  await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        await lockCredits(tx, ownerId);
        await grantWelcomeLocked(tx, { ownerId, visitor });
      }),
    { waitMs: BUSY_WAIT_MS },
  );
  const granted = await readCreditSummary(prisma, ownerId);
  return { credits: granted.credits, held: granted.held };
}
