// The guest → account claim: after any sign-in, what the browser's guest (the
// visitor cookie's id) made moves to the account, if the person says yes.
// One transaction: the claim's row first (keyed by the guest, so a guest
// belongs to one account only, ever, whatever runs at the same time), then
// the guest's generations (their spend moves with them: caps sum generation
// rows), uploads, upload reservations, idempotency keys, and credits: every
// ledger row (holds of videos still in flight settle on the account) and
// purchase. An account is welcomed once (one not yet welcomed is welcomed
// first), and keeping never costs it credits of its own: what the guest had
// not spent of its own grant is not added (readClaimCredits), and what of it
// the guest's videos in flight hold is owed, paid by their releases (the
// claim's row, GuestClaim.welcomeOwed; lib/credits/owed.ts). A second run
// finds its own row and moves only what the guest made since (nothing,
// normally: signing out starts a fresh guest). The guest's id comes from the
// signed cookie only, never from a request body.
import "server-only";
import { accountOwnerId, isDeletedAccount } from "@/lib/auth/session";
import { appendEntry, grantWelcomeLocked, ledgerKey, lockCredits, readCreditSummary } from "@/lib/credits/ledger";
import { retryTransaction } from "@/lib/database/errors";
import { prisma, type Transaction } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { announceGenerationChange, moveGenerationsIn } from "@/lib/generations/store";
import { traced } from "@/lib/traces/tracing";

/** What a guest made and bought: the prompt names what is there (credits only when some were bought). */
export type GuestHoldings = { generations: number; uploads: number; purchases: number; credits: number };
export type ClaimResult = { generations: number; uploads: number; credits: number; alreadyClaimed: boolean };


/** What the prompt counts: the videos the guest's gallery shows, and the uploads they kept. */
export async function guestHoldings(guestId: string): Promise<GuestHoldings> {
  const [generations, uploads, purchases, credits] = await Promise.all([
    prisma.generation.count({ where: { ownerId: guestId, deletedAt: null } }),
    prisma.upload.count({ where: { ownerId: guestId } }),
    prisma.purchase.count({ where: { ownerId: guestId } }),
    prisma.creditEntry.aggregate({ where: { ownerId: guestId }, _sum: { amount: true } }),
  ]);
  return { generations, uploads, purchases, credits: Number(credits._sum.amount ?? 0) };
}

/** Whether the claim prompt has anything to offer: credits count only when the guest bought some (every guest is welcomed). */
export const holdsAnything = (h: GuestHoldings) => h.generations > 0 || h.uploads > 0 || h.purchases > 0;

/** Who a guest was claimed by, or null. */
export async function guestClaimedBy(guestId: string): Promise<string | null> {
  return (await prisma.guestClaim.findUnique({ where: { guestId }, select: { userId: true } }))?.userId ?? null;
}

/** SQLite answers "busy" to a writer that waits too long: the claim is retried whole, as the store's writes are. */
const BUSY_WAIT_MS = 10_000;
const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 10_000 };

/** Announced one by one (each a card on the account's other devices); past this many, their safety-net poll catches up. */
const ANNOUNCED_MOVES = 100;

type ClaimArgs = { guestId: string; userId: string; visitor: string };

/**
 * `visitor` (the client address's key) is for the account's own welcome grant: an account not yet welcomed is
 * welcomed first, as its first balance shown would, so that keeping a guest's work never leaves it with less than
 * "Not now" would.
 */
export function claimGuest(args: ClaimArgs): Promise<ClaimResult> {
  // Ids only: the account's email (and the address key) stay out of the trace.
  return traced("viewer.claim_guest", { attributes: { "framehook.guest.id": args.guestId, "framehook.user.id": args.userId } }, () => runClaim(args));
}

async function runClaim({ guestId, userId, visitor }: ClaimArgs): Promise<ClaimResult> {
  const owner = accountOwnerId(userId);
  if (guestId.startsWith("user:")) throw new AppError("invalid_input", "Only a guest can be claimed.");
  const result = await retryTransaction(() => prisma.$transaction(async (tx) => {
    // The claim's row first: of two accounts claiming one guest at once, the second waits here and then finds it taken.
    await tx.$executeRaw`INSERT INTO "GuestClaim" ("guestId", "userId", "claimedAt", "generations", "uploads")
      VALUES (${guestId}, ${userId}, ${new Date()}, 0, 0) ON CONFLICT ("guestId") DO NOTHING`;
    const claim = await tx.guestClaim.findUniqueOrThrow({ where: { guestId } });
    if (claim.userId !== userId) throw new AppError("conflict", "What this browser made already belongs to another account.");
    const alreadyClaimed = claim.generations > 0 || claim.uploads > 0;
    // Both owners' credit locks before anything moves (the guest's, then the account's: a hold takes one owner's
    // lock only, so no two writers wait in a cycle). A guest's submission holding the guest's lock commits first,
    // and its generation and its hold then move together.
    await lockCredits(tx, guestId);
    await lockCredits(tx, owner);
    // An account deleted meanwhile (deletion holds its lock while it deletes) keeps nothing: the guest stays as it was.
    if (await isDeletedAccount(tx, owner)) throw new AppError("gone", "This account was deleted: what this browser made stays here.");
    if (!(await readCreditSummary(tx, owner)).welcomed) await grantWelcomeLocked(tx, { ownerId: owner, visitor });

    const { moved: generations, ids: announce } = await moveGenerationsIn(tx, { from: guestId, to: owner, announce: ANNOUNCED_MOVES });
    const uploads = (await tx.upload.updateMany({ where: { ownerId: guestId }, data: { ownerId: owner } })).count;
    await tx.uploadReservation.updateMany({ where: { ownerId: guestId }, data: { ownerId: owner } });
    const credits = await moveCredits(tx, { guestId, owner });
    if (generations || uploads) {
      await tx.guestClaim.update({ where: { guestId }, data: { generations: { increment: generations }, uploads: { increment: uploads } } });
    }
    return { generations, uploads, credits, alreadyClaimed, announce };
  }, TRANSACTION_OPTIONS), { waitMs: BUSY_WAIT_MS });
  // After the commit: the account's open tabs on other devices get the cards.
  for (const id of result.announce) await announceGenerationChange({ id });
  return { generations: result.generations, uploads: result.uploads, credits: result.credits, alreadyClaimed: result.alreadyClaimed };
}

/** Moves the guest's ledger rows and purchases (both owners' credit locks are held); returns the credits the account gained. */
async function moveCredits(tx: Transaction, { guestId, owner }: { guestId: string; owner: string }): Promise<number> {
  const { guestCredits, welcomeTakenBack, welcomeOwed, heldBought } = await readClaimCredits({ guestId, owner }, tx);
  const moved = (await tx.creditEntry.updateMany({ where: { ownerId: guestId }, data: { ownerId: owner } })).count;
  await tx.purchase.updateMany({ where: { ownerId: guestId }, data: { ownerId: owner } });
  if (!moved) return 0;
  if (welcomeTakenBack > 0) {
    await appendEntry(tx, {
      ownerId: owner,
      kind: "ADJUSTMENT",
      amount: -welcomeTakenBack,
      idempotencyKey: ledgerKey.keptGuestWelcome(guestId),
      note: "welcome credits the kept guest had not spent: an account is welcomed once",
    });
  }
  // What its videos in flight hold cannot be taken now: their releases pay it (collectClaimOwedIn). Only a first
  // claim finds the guest welcomed, so this is written once.
  if (welcomeOwed > 0) await tx.guestClaim.update({ where: { guestId }, data: { welcomeOwed, heldBought } });
  return guestCredits - welcomeTakenBack;
}

export type ClaimCredits = {
  /** What the guest's ledger adds up to now (what holds in flight keep aside excluded). */
  guestCredits: number;
  /** The part of the guest's welcome grant that is not added to an account already welcomed. */
  welcomeTakenBack: number;
  /**
   * The part of it its videos in flight hold, were they all to fail: taken from what their holds give back, once
   * `heldBought` (the bought credits they hold) came back first.
   */
  welcomeOwed: number;
  heldBought: number;
};

/**
 * The claim's rule for credits (docs/credits.md): an account is welcomed
 * once, and keeping a guest's work never costs the account credits of its
 * own. The guest's credits move whole, except, when both were welcomed, the
 * part of the guest's welcome grant it has not spent: free credits count as
 * spent first, so that part is at most the grant and at most what the guest
 * holds beyond what it bought. A guest that spent its grant gives nothing
 * back; bought credits always move. Credits its videos in flight hold count
 * as spent: what of the grant they hold is owed, paid by what those holds give
 * back if the videos fail (welcomeOwed). Read for the prompt before the click,
 * and again under both owners' locks by the claim itself.
 */
export async function readClaimCredits({ guestId, owner }: { guestId: string; owner: string }, db: Transaction | typeof prisma = prisma): Promise<ClaimCredits> {
  const [guest, account, bought, welcome] = await Promise.all([
    readCreditSummary(db, guestId),
    readCreditSummary(db, owner),
    // Bought credits net of what refunds and disputes took back (collected debts included), as the admin overview counts them.
    db.creditEntry.aggregate({ where: { ownerId: guestId, kind: { in: ["PURCHASE", "REFUND", "DISPUTE", "COLLECT"] } }, _sum: { amount: true } }),
    db.creditEntry.aggregate({ where: { ownerId: guestId, kind: "GRANT", idempotencyKey: ledgerKey.welcome(guestId) }, _sum: { amount: true } }),
  ]);
  if (!(guest.welcomed && account.welcomed)) return { guestCredits: guest.credits, welcomeTakenBack: 0, welcomeOwed: 0, heldBought: 0 };
  const boughtNet = Math.max(0, Number(bought._sum.amount ?? 0));
  const grant = Number(welcome._sum.amount ?? 0);
  // What the rule takes when the guest holds `credits`: the credits held in flight count as spent until they come back.
  const takenBackAt = (credits: number) => Math.min(grant, Math.max(0, credits - boughtNet));
  const welcomeTakenBack = takenBackAt(guest.credits);
  return {
    guestCredits: guest.credits,
    welcomeTakenBack,
    welcomeOwed: takenBackAt(guest.credits + guest.held) - welcomeTakenBack,
    heldBought: Math.max(0, boughtNet - guest.credits),
  };
}
