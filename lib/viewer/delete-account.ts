// Deleting an account, a fresh decision: only from a session signed in within
// the last day (a new email link or passkey otherwise). Its generations (the
// store deletes them, with their deliveries and copy rows), its uploads, its
// credits ledger, its sessions, passkeys and OAuth links go in one
// transaction, which records the deletion (its purchases and the claims of
// the guests it kept stay: the operator's accounting, and what a late
// purchase of such a guest finds it by); then the stored files, which a
// database transaction cannot take back. A file that cannot be deleted is
// logged with its key (the row is gone, so nothing serves it).
import "server-only";
import { accountOwnerId } from "@/lib/auth/session";
import { lockCredits } from "@/lib/credits/ledger";
import { prisma } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { deleteGenerationsOfIn } from "@/lib/generations/store";
import { getMediaStorage } from "@/lib/storage/storage";

export type DeletedAccount = { generations: number; uploads: number; files: number };

/** How recent a sign-in deleting the account needs. */
export const FRESH_SIGN_IN_MS = 24 * 60 * 60 * 1000;

/** Whether a session signed in at `signedInAt` may delete its account now. */
export const signedInRecently = (signedInAt: Date, now = Date.now()) => now - signedInAt.getTime() <= FRESH_SIGN_IN_MS;

export const FRESH_SIGN_IN_MESSAGE = "Deleting your account needs a sign-in from the last day: sign in again with an email link or a passkey, then delete it.";

/** `sessionId`: the session asking, which must be the account's and signed in within FRESH_SIGN_IN_MS. */
export async function deleteAccount({ userId, sessionId, now = Date.now() }: { userId: string; sessionId: string; now?: number }): Promise<DeletedAccount> {
  const ownerId = accountOwnerId(userId);
  const { keys, generations, uploads } = await prisma.$transaction(async (tx) => {
    // Under the account's credit lock: a claim, a hold, a purchase or a grant landing now waits, then finds the
    // deletion recorded below (isDeletedAccount) and writes nothing for it.
    await lockCredits(tx, ownerId);
    const session = await tx.session.findUnique({ where: { id: sessionId }, select: { userId: true, createdAt: true } });
    if (session?.userId !== userId) throw new AppError("unauthorized", "Sign in to delete your account.");
    if (!signedInRecently(session.createdAt, now)) throw new AppError("fresh_sign_in_required", FRESH_SIGN_IN_MESSAGE);
    const ownUploads = await tx.upload.findMany({ where: { ownerId }, select: { storageKey: true } });
    const uploads = (await tx.upload.deleteMany({ where: { ownerId } })).count;
    await tx.uploadReservation.deleteMany({ where: { ownerId } });
    const { deleted: generations, storageKeys } = await deleteGenerationsOfIn(tx, { ownerId });
    await tx.creditEntry.deleteMany({ where: { ownerId } });
    await tx.creditLock.deleteMany({ where: { ownerId } });
    // The claims of guests this account kept stay (ids and counts, nothing personal): a purchase such a guest
    // started lands after the deletion and finds the account through them (recorded for the operator, credited to
    // nobody), and a copy of the kept guest's cookie is never welcomed again.
    // Sessions, passkeys and OAuth links go with the user (onDelete: Cascade); what lands for it later reads this.
    await tx.user.delete({ where: { id: userId } });
    await tx.deletedAccount.create({ data: { userId } });
    const keys = [...storageKeys, ...ownUploads.map((u) => u.storageKey)];
    return { keys: keys.filter((k): k is string => Boolean(k)), generations, uploads };
  });
  const storage = await getMediaStorage();
  let files = 0;
  for (const key of keys) {
    try {
      await storage?.delete({ key });
      files++;
    } catch (error) {
      console.warn(`[framehook] could not delete ${key} of a deleted account: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`[framehook] deleted account ${userId}: ${generations} generations, ${uploads} uploads, ${files} files`);
  return { generations, uploads, files };
}
