// Uploads do not outlive their use: one no submission used is deleted after
// UPLOAD_UNUSED_HOURS, the inputs of a finished generation after
// UPLOAD_RETENTION_DAYS; a generation still in flight keeps its inputs (the
// gateway may fetch them again on a retry). Run by the cron's reconcile pass.
// The row goes first, conditionally, so a sweep and a submission never both win.
import "server-only";
import { env } from "@/lib/env";
import { getMediaStorage } from "@/lib/storage/storage";
import { deleteExpiredReservations, deleteUploadIf, findExpiredUploads, findOwnUpload } from "./upload-store";

const SWEEP_BATCH = 200;

export async function deleteUnusedUpload({ id, ownerId }: { id: string; ownerId: string }): Promise<"deleted" | "in_use" | "not_found"> {
  const upload = await findOwnUpload({ id, ownerId });
  if (!upload) return "not_found";
  if (!(await deleteUploadIf({ where: { id, ownerId, usedAt: null } }))) return "in_use";
  await deleteObject(upload.storageKey);
  return "deleted";
}

/** Deletes a batch of expired uploads, and reservations left by uploads that never finished; returns how many uploads went. */
export async function sweepUploads({ now = new Date() }: { now?: Date } = {}): Promise<number> {
  await deleteExpiredReservations({ now });
  const unusedBefore = new Date(now.getTime() - env.UPLOAD_UNUSED_HOURS * 3_600_000);
  const usedBefore = new Date(now.getTime() - env.UPLOAD_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (const upload of await findExpiredUploads({ unusedBefore, usedBefore, take: SWEEP_BATCH })) {
    // Re-checked in the delete itself: used (or used again) since it was listed, it stays.
    const stillExpired = upload.usedAt === null ? { usedAt: null, createdAt: { lt: unusedBefore } } : { usedAt: { lt: usedBefore } };
    if (!(await deleteUploadIf({ where: { id: upload.id, ...stillExpired } }))) continue;
    await deleteObject(upload.storageKey);
    deleted++;
  }
  return deleted;
}

async function deleteObject(key: string) {
  try {
    await (await getMediaStorage())?.delete({ key });
  } catch (error) {
    // The row is gone, so nothing serves it; the bytes cost disk until an operator clears uploads/.
    console.warn(`[framehook] could not delete upload ${key}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
