// Every write to upload rows, and the reads that scope them to their owner.
import "server-only";
import { randomBytes } from "node:crypto";
import { prisma } from "@/lib/db";
import type { Prisma, Upload } from "@/lib/generated/prisma/client";

export type { Upload };

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** "upl_" + 24 random lowercase letters and digits (UPLOAD_ID_PATTERN): ~124 bits, unguessable. */
export function newUploadId(): string {
  const bytes = randomBytes(24);
  return `upl_${Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("")}`;
}

export const uploadStorageKey = (id: string) => `uploads/${id}`;

export function insertUpload({ data }: { data: Prisma.UploadUncheckedCreateInput }): Promise<Upload> {
  return prisma.upload.create({ data });
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

/** Bytes the owner's uploads take now (for the quota). */
export async function bytesHeldBy({ ownerId }: { ownerId: string }): Promise<number> {
  const sum = await prisma.upload.aggregate({ where: { ownerId }, _sum: { size: true } });
  return sum._sum.size ?? 0;
}

/** The client inside `prisma.$transaction(async (tx) => …)`. */
type Transaction = Parameters<Extract<Parameters<typeof prisma.$transaction>[0], (tx: never) => unknown>>[0];

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
