// An account's email choices (the EmailSettings row): whether it wants an
// email when each video is ready (the form's default, the account page's
// setting), and its last unsubscribe. Every write of those rows is here.
import "server-only";
import { prisma } from "@/lib/db";

export async function readyEmailsChosen({ userId }: { userId: string }): Promise<boolean> {
  const row = await prisma.emailSettings.findUnique({ where: { userId }, select: { readyEmails: true } });
  return row?.readyEmails ?? false;
}

/** The account's choice, from the form's box or the account page. No-op when it is already that. */
export async function chooseReadyEmails({ userId, on }: { userId: string; on: boolean }): Promise<void> {
  await prisma.emailSettings.upsert({ where: { userId }, create: { userId, readyEmails: on }, update: { readyEmails: on } });
}

/**
 * A one-click unsubscribe (lib/notifications/unsubscribe.ts): no more ready
 * emails by default, and none about videos submitted before now, whether
 * their email is due yet or not (the sender checks unsubscribedAt; rows
 * waiting now are cancelled here). Doing it twice changes nothing more.
 */
export async function unsubscribeFromReadyEmails({ userId, now = new Date() }: { userId: string; now?: Date }): Promise<void> {
  await prisma.$transaction([
    prisma.emailSettings.upsert({ where: { userId }, create: { userId, readyEmails: false, unsubscribedAt: now }, update: { readyEmails: false, unsubscribedAt: now } }),
    prisma.readyEmail.updateMany({
      where: { ownerId: `user:${userId}`, state: "PENDING", generation: { createdAt: { lte: now } } },
      data: { state: "CANCELLED", lastError: "unsubscribed" },
    }),
  ]);
}
