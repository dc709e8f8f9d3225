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

/** Records that a generation uses these uploads: they now follow its retention, not the unused uploads' one. */
export async function markUploadsUsed({ ids, generationId }: { ids: string[]; generationId: string }): Promise<void> {
  if (ids.length === 0) return;
  await prisma.upload.updateMany({ where: { id: { in: ids } }, data: { usedAt: new Date(), generationId } });
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
