// Deleting an account: its generations (their deliveries and stored copies
// go with them), its uploads, its credits ledger, its guest claims, its
// sessions, passkeys and OAuth links, in one transaction (its purchases stay:
// they are the operator's accounting, and a later refund is recorded as owed); then the stored files, which a database
// transaction cannot take back. A file that cannot be deleted is logged with
// its key (the row is gone, so nothing serves it).
import "server-only";
import { lockCredits } from "@/lib/credits/ledger";
import { prisma } from "@/lib/db";
import { getMediaStorage } from "@/lib/storage/storage";
import { accountOwnerId } from "@/lib/auth/session";

export type DeletedAccount = { generations: number; uploads: number; files: number };

export async function deleteAccount({ userId }: { userId: string }): Promise<DeletedAccount> {
  const ownerId = accountOwnerId(userId);
  const { keys, generations, uploads } = await prisma.$transaction(async (tx) => {
    // Under the account's credit lock: a hold or a purchase landing now waits, then finds no user (see purchases.ts).
    await lockCredits(tx, ownerId);
    const copies = await tx.mediaCopy.findMany({ where: { generation: { ownerId } }, select: { storageKey: true, stillKey: true } });
    const ownUploads = await tx.upload.findMany({ where: { ownerId }, select: { storageKey: true } });
    const uploads = (await tx.upload.deleteMany({ where: { ownerId } })).count;
    await tx.uploadReservation.deleteMany({ where: { ownerId } });
    const generations = (await tx.generation.deleteMany({ where: { ownerId } })).count;
    await tx.creditEntry.deleteMany({ where: { ownerId } });
    await tx.creditLock.deleteMany({ where: { ownerId } });
    await tx.guestClaim.deleteMany({ where: { userId } });
    // Sessions, passkeys and OAuth links go with the user (onDelete: Cascade).
    await tx.user.delete({ where: { id: userId } });
    const keys = [...copies.flatMap((c) => [c.storageKey, c.stillKey]), ...ownUploads.map((u) => u.storageKey)];
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
