// An owner's credits as they see them: the balance (a sum read in one
// statement; never below zero, since every write that takes credits checks it
// under the owner's lock), what generations in flight hold, and the welcome
// grant, made the first time either is shown or a submission holds credits.
import "server-only";
import { retryTransaction } from "@/lib/database/errors";
import { prisma } from "@/lib/db";
import { grantWelcomeLocked, lockCredits, readCreditBalance, readCreditSummary } from "./ledger";
import { welcomeGrantCredits } from "./pricing";

/** `welcome: "ceiling"`: a new owner not welcomed because today's welcome grants are all given (the page says how to get credits). */
export type CreditBalance = { credits: number; held: number; welcome?: "ceiling" };

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
  const outcome = await retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        await lockCredits(tx, ownerId);
        return grantWelcomeLocked(tx, { ownerId, visitor });
      }),
    { waitMs: BUSY_WAIT_MS },
  );
  const granted = await readCreditSummary(prisma, ownerId);
  return { credits: granted.credits, held: granted.held, ...(outcome === "ceiling" ? { welcome: "ceiling" as const } : {}) };
}
