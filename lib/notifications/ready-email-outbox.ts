// The ready-email outbox's rows after the outcome write made them due: every
// change is a conditional update on the row's id, its state and its attempts
// (the fencing token a claim moves), so of two instances that find the same
// due row one claims it and the other's update matches nothing, and a sender
// whose lease lapsed cannot overwrite the next one's outcome.
import "server-only";
import { prisma } from "@/lib/db";
import type { Prisma, ReadyEmail } from "@/lib/generated/prisma/client";

/** How long a claim is the claimer's: longer than an SMTP exchange can take (its timeouts are 10 s + 30 s). */
export const READY_EMAIL_LEASE_MS = 2 * 60_000;

const due = (now: Date): Prisma.ReadyEmailWhereInput => ({
  OR: [
    { state: "PENDING", nextRunAt: { lte: now } },
    // A sender that died mid-send: its lease lapsed, the row is due again.
    { state: "SENDING", leaseUntil: { lt: now } },
  ],
});

export function findDueReadyEmails({ now, take }: { now: Date; take: number }): Promise<ReadyEmail[]> {
  return prisma.readyEmail.findMany({ where: due(now), orderBy: { nextRunAt: "asc" }, take });
}

/** When the next waiting row is due, if any is waiting. */
export async function nextReadyEmailAt(): Promise<Date | null> {
  const next = await prisma.readyEmail.findFirst({ where: { state: "PENDING" }, orderBy: { nextRunAt: "asc" }, select: { nextRunAt: true } });
  return next?.nextRunAt ?? null;
}

/** Claims a due row for one attempt: its attempts number afterwards (the fence), or null when another sender has it. */
export async function claimReadyEmail({ row, now }: { row: ReadyEmail; now: Date }): Promise<number | null> {
  const { count } = await prisma.readyEmail.updateMany({
    where: { id: row.id, attempts: row.attempts, ...due(now) },
    data: { state: "SENDING", attempts: row.attempts + 1, leaseUntil: new Date(now.getTime() + READY_EMAIL_LEASE_MS) },
  });
  return count === 1 ? row.attempts + 1 : null;
}

type Claimed = { id: number; attempts: number };

const settle = async ({ id, attempts }: Claimed, data: Prisma.ReadyEmailUpdateManyMutationInput) =>
  (await prisma.readyEmail.updateMany({ where: { id, attempts, state: "SENDING" }, data })).count === 1;

export const markReadyEmailSent = (claimed: Claimed, now: Date) => settle(claimed, { state: "SENT", sentAt: now, leaseUntil: null, lastError: null });

export const retryReadyEmailAt = (claimed: Claimed, nextRunAt: Date, error: string) => settle(claimed, { state: "PENDING", nextRunAt, leaseUntil: null, lastError: error });

/** Not sent and not a failure (the video's still is on its way): due again at `nextRunAt`, the attempt not counted. */
export const deferReadyEmail = (claimed: Claimed, nextRunAt: Date) =>
  settle(claimed, { state: "PENDING", nextRunAt, leaseUntil: null, attempts: claimed.attempts - 1 });

export const giveUpReadyEmail = (claimed: Claimed, error: string) => settle(claimed, { state: "GAVE_UP", leaseUntil: null, lastError: error });

export const cancelReadyEmail = (claimed: Claimed, reason: string) => settle(claimed, { state: "CANCELLED", leaseUntil: null, lastError: reason });
