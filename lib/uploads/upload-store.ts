// Every write to upload rows and their reservations, and the reads that scope them to their owner.
import "server-only";
import { randomBytes } from "node:crypto";
import { lockLiveOwner } from "@/lib/credits/ledger";
import { retryTransaction } from "@/lib/database/errors";
import { prisma, type Transaction } from "@/lib/db";
import type { Prisma, Upload } from "@/lib/generated/prisma/client";
import { RESERVATION_MS, uploadQuotaCheck } from "./upload-quota";

export type { Upload };

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** "upl_" + 24 random lowercase letters and digits (UPLOAD_ID_PATTERN): ~124 bits, unguessable. */
export function newUploadId(): string {
  const bytes = randomBytes(24);
  return `upl_${Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("")}`;
}

export const uploadStorageKey = (id: string) => `uploads/${id}`;

/** How long a reservation or a record waits out a busy database (a locked SQLite file, a full pool). */
const BUSY_WAIT_MS = 10_000;
/** Concurrent uploads of one scope queue on its lock row; on PostgreSQL they also wait for a pooled connection. */
const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 10_000 };

/** This upload id is being received right now, or was recorded already (a presigned form finalized twice at once). */
export class UploadInProgressError extends Error {}

/**
 * Reserves room for upload `id` before its body is read: `bytes` when its
 * size is known, else the room left up to `maxBytes`. Checked against the
 * quotas inside the reservation's transaction (lib/uploads/upload-quota.ts), so
 * concurrent uploads cannot overshoot; throws the quota's refusal and stores
 * nothing when there is no room. Returns the bytes reserved. The id is
 * claimed too: a second reservation of a live one throws UploadInProgressError.
 */
export async function reserveUpload({
  id,
  ownerId,
  clientKey,
  bytes,
  maxBytes,
  now = Date.now(),
}: {
  id: string;
  ownerId: string;
  clientKey: string | null;
  bytes: number | null;
  maxBytes: number;
  now?: number;
}): Promise<number> {
  const check = uploadQuotaCheck({ ownerId, clientKey, now });
  const at = new Date(now);
  const expiresAt = new Date(now + RESERVATION_MS);
  return retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        // An account deleted before its upload began stores nothing (see recordUpload).
        await lockLiveOwner(tx, ownerId, at);
        const granted = await check(tx, { bytes, maxBytes });
        // The claim of the id: a reservation left by a process that died mid-upload (expired) is taken over; a live one is not.
        const claimed = await tx.$executeRaw`
          INSERT INTO "UploadReservation" ("id", "ownerId", "clientKey", "bytes", "expiresAt") VALUES (${id}, ${ownerId}, ${clientKey}, ${granted}, ${expiresAt})
          ON CONFLICT ("id") DO UPDATE SET "ownerId" = excluded."ownerId", "clientKey" = excluded."clientKey", "bytes" = excluded."bytes", "expiresAt" = excluded."expiresAt"
          WHERE "UploadReservation"."expiresAt" <= ${at}`;
        if (claimed === 0) throw new UploadInProgressError(`upload ${id} is being received`);
        // After the claim, in a statement of its own, so that a receipt of this id that committed meanwhile is seen: it was recorded already.
        const [recorded] = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "Upload" WHERE "id" = ${id}`;
        if (recorded) throw new UploadInProgressError(`upload ${id} is recorded already`);
        return granted;
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
}

/** Checks that `bytes` more would fit every quota, reserving nothing (a presigned form: the finalize reserves). */
export async function checkUploadRoom({ ownerId, clientKey, bytes, now = Date.now() }: { ownerId: string; clientKey: string | null; bytes: number | null; now?: number }): Promise<void> {
  const check = uploadQuotaCheck({ ownerId, clientKey, now });
  await retryTransaction(() => prisma.$transaction((tx) => check(tx, { bytes, maxBytes: bytes ?? 1 }), TRANSACTION_OPTIONS), { waitMs: BUSY_WAIT_MS });
}

/**
 * Records a received upload in place of its reservation, in one transaction.
 * A file larger than its reservation (a rewritten image can grow) is checked
 * against the quotas again for the whole size; throws the quota's refusal then.
 * An account deleted meanwhile records nothing (401, ACCOUNT_DELETED).
 */
export async function recordUpload({ data, now = Date.now() }: { data: Prisma.UploadUncheckedCreateInput & { id: string; ownerId: string }; now?: number }): Promise<Upload> {
  const check = uploadQuotaCheck({ ownerId: data.ownerId, clientKey: data.clientKey ?? null, now });
  return retryTransaction(
    () =>
      prisma.$transaction(async (tx) => {
        // First, under the owner's credit lock (account deletion holds it): an upload whose bytes finished arriving
        // while its account was deleted records nothing, and the caller deletes its file.
        await lockLiveOwner(tx, data.ownerId, new Date(now));
        // The reservation is given up and read in one statement: what it held, if it is still live.
        const [reservation] = await tx.$queryRaw<{ bytes: bigint | number }[]>`
          DELETE FROM "UploadReservation" WHERE "id" = ${data.id}
          RETURNING CASE WHEN "expiresAt" > ${new Date(now)} THEN "bytes" ELSE 0 END AS "bytes"`;
        if (data.size > Number(reservation?.bytes ?? 0)) await check(tx, { bytes: data.size, maxBytes: data.size });
        return tx.upload.create({ data });
      }, TRANSACTION_OPTIONS),
    { waitMs: BUSY_WAIT_MS },
  );
}

/** Gives a refused or failed upload's room back. */
export async function releaseUploadReservation({ id }: { id: string }): Promise<void> {
  await prisma.uploadReservation.deleteMany({ where: { id } });
}

/** Deletes reservations past their expiry (they already count for nothing); returns how many. */
export async function deleteExpiredReservations({ now = new Date() }: { now?: Date } = {}): Promise<number> {
  const { count } = await prisma.uploadReservation.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}

/** The owner's upload, or null: another owner's answers as a missing one does. */
export function findOwnUpload({ id, ownerId }: { id: string; ownerId: string }): Promise<Upload | null> {
  return prisma.upload.findFirst({ where: { id, ownerId } });
}

/** For a signed link: the link is the permission, so no owner is asked. */
export function findUploadForLink({ id }: { id: string }): Promise<Upload | null> {
  return prisma.upload.findUnique({ where: { id } });
}

export function findUploads({ ids, ownerId }: { ids: string[]; ownerId: string }): Promise<Upload[]> {
  return prisma.upload.findMany({ where: { id: { in: ids }, ownerId } });
}


/** Some of a submission's uploads were deleted (by their owner, or the sweep) after they were checked. */
export class UploadsGoneError extends Error {
  constructor(readonly ids: string[]) {
    super(`uploads gone: ${ids.join(", ")}`);
    this.name = "UploadsGoneError";
  }
}

/**
 * Records that a generation uses these uploads, inside the transaction that
 * inserts it: from then on they follow its retention, and neither their
 * owner's delete nor the unused-upload sweep (both conditional on the row
 * being as they read it) can remove them. One conditional write; if any row
 * is no longer there, it throws UploadsGoneError and the insert rolls back.
 */
export async function claimUploadsFor(tx: Transaction, { ids, ownerId, generationId }: { ids: string[]; ownerId: string; generationId: string }): Promise<void> {
  if (ids.length === 0) return;
  const claimed = await tx.upload.updateManyAndReturn({ where: { id: { in: ids }, ownerId }, data: { usedAt: new Date(), generationId }, select: { id: true } });
  if (claimed.length === ids.length) return;
  const found = new Set(claimed.map((u) => u.id));
  throw new UploadsGoneError(ids.filter((id) => !found.has(id)));
}

/** Deletes the row only if it is still as `where` says (unused, say); true when it was deleted. */
export async function deleteUploadIf({ where }: { where: Prisma.UploadWhereInput }): Promise<boolean> {
  const { count } = await prisma.upload.deleteMany({ where });
  return count > 0;
}

/**
 * Uploads past keeping: never used and older than `unusedBefore`, or last
 * used before `usedBefore` by a generation that is no longer in flight (a
 * generation the gateway may still be fetching inputs for keeps them).
 */
export function findExpiredUploads({ unusedBefore, usedBefore, take }: { unusedBefore: Date; usedBefore: Date; take: number }) {
  return prisma.upload.findMany({
    where: {
      OR: [
        { usedAt: null, createdAt: { lt: unusedBefore } },
        { usedAt: { lt: usedBefore }, OR: [{ generationId: null }, { generation: { state: { notIn: ["SUBMITTING", "PENDING"] } } }] },
      ],
    },
    select: { id: true, storageKey: true, usedAt: true },
    orderBy: { createdAt: "asc" },
    take,
  });
}
