// Uploads that go straight from the browser to an S3 bucket, read top to
// bottom: presign (which field, the address's upload rate, the quotas, a form
// whose signed policy fixes the key under uploads/incoming/ and caps the size)
// → the browser posts the file to the bucket → finalize (the app claims the
// upload's id, reads the object back and runs the checks of every upload on
// it, then deletes the posted object, kept or refused). The form can be posted
// again while it is valid; the claim lets one finalize at a time read it, so
// the row and the stored file always describe the same bytes.
// Nothing waits for a storage callback: the browser's finalize call is the
// only signal, and a posted object never finalized is left to the bucket's
// lifecycle rule (docs/operations.md).
import "server-only";
import { createHmac } from "node:crypto";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { formatBytes } from "@/lib/models/media-limits";
import { safeEqual } from "@/lib/viewer/safe-equal";
import { mediaFieldOf, receiveUpload, toUploadView, type UploadView } from "./receive-upload";
import { getMediaStorage, type MediaStorage } from "@/lib/storage/storage";
import { hitUploadRateLimit, type UploadClient } from "./upload-quota";
import { checkUploadRoom, findOwnUpload, newUploadId, UploadInProgressError } from "./upload-store";

/** How long the bucket takes the post: long enough to start it, short enough that a leaked form is soon useless. */
export const PRESIGNED_POST_SECONDS = 600;
/** How long a finalize may follow: the post may take a while once started. */
const FINALIZE_SECONDS = 3 * 3600;

export const incomingKey = (id: string) => `uploads/incoming/${id}`;

export type UploadStart =
  | { method: "stream"; url: string }
  | { method: "post"; id: string; url: string; fields: Record<string, string>; maxBytes: number; expiresAt: string; finalize: { url: string; token: string } };

/** How the client sends a file for this model field: streamed to POST /api/uploads, or posted to the bucket. */
export async function startUpload({
  ownerId,
  client,
  modelId,
  fieldName,
  size,
}: {
  ownerId: string;
  client: UploadClient;
  modelId: string | null;
  fieldName: string | null;
  size?: number;
}): Promise<UploadStart> {
  const { model, field } = mediaFieldOf(modelId, fieldName);
  const { maxBytes } = field.limits;
  if (size !== undefined && size > maxBytes) {
    const message = `This file is ${formatBytes(size)}; ${model.label} takes up to ${formatBytes(maxBytes)}.`;
    throw new AppError("payload_too_large", message, { [field.name]: [message] });
  }
  await hitUploadRateLimit({ client });
  // Counted against the quotas now, reserved at finalize (the file may never be posted).
  await checkUploadRoom({ ownerId, clientKey: client.anonymous ? client.key : null, bytes: size ?? null }).catch((error: unknown) => {
    throw error instanceof AppError ? new AppError(error.code, error.message, { [field.name]: [error.message] }, error.headers) : error;
  });
  const storage = await storageOrRefuse();
  if (!storage.presignPost) return { method: "stream", url: `/api/uploads?model=${encodeURIComponent(model.id)}&field=${encodeURIComponent(field.name)}` };

  const id = newUploadId();
  const now = Date.now();
  const { url, fields } = await storage.presignPost({ key: incomingKey(id), maxBytes, expiresSeconds: PRESIGNED_POST_SECONDS });
  const token = signTicket({ id, ownerId, model: model.id, field: field.name, expires: Math.floor(now / 1000) + FINALIZE_SECONDS });
  return {
    method: "post",
    id,
    url,
    fields,
    maxBytes,
    expiresAt: new Date(now + PRESIGNED_POST_SECONDS * 1000).toISOString(),
    finalize: { url: "/api/uploads/finalize", token },
  };
}

/**
 * Reads the posted object back and checks it like a streamed upload; the
 * posted object is deleted either way (a kept file is stored rewritten, under
 * its own key). Finalizing twice answers the same upload; a finalize while
 * another one of the same ticket is reading answers 409 and touches nothing.
 */
export async function finalizeUpload({ ownerId, client, token }: { ownerId: string; client: UploadClient; token: string }): Promise<{ upload: UploadView; created: boolean }> {
  const ticket = readTicket(token);
  // Another owner's ticket answers as a missing upload does.
  if (!ticket || ticket.ownerId !== ownerId) throw new AppError("not_found", "No such upload.");
  const storage = await storageOrRefuse();
  const key = incomingKey(ticket.id);
  const existing = await findOwnUpload({ id: ticket.id, ownerId });
  if (existing) {
    // The form posted again after it was finalized: that file is not kept.
    await deleteQuietly(storage, key);
    return { upload: toUploadView(existing), created: false };
  }

  if (ticket.expires * 1000 < Date.now()) {
    await deleteQuietly(storage, key);
    throw new AppError("gone", "This upload was not finished in time: upload the file again.");
  }
  const object = await storage.get({ key });
  if (!object) throw new AppError("not_found", "No file has been posted for this upload yet.", { [ticket.field]: ["No file has been posted for this upload yet."] });
  // The id is claimed (reserved) inside receiveUpload before a byte is read: one finalize at a time reads the object.
  let claimed = true;
  try {
    const upload = await receiveUpload({ ownerId, client, modelId: ticket.model, fieldName: ticket.field, body: object.body, declaredBytes: object.size, id: ticket.id });
    return { upload, created: true };
  } catch (error) {
    // A twin finalize recorded it first.
    const twin = await findOwnUpload({ id: ticket.id, ownerId });
    if (twin) return { upload: toUploadView(twin), created: false };
    if (error instanceof UploadInProgressError) {
      claimed = false;
      const message = "This upload is being finalized by another request: wait for its answer.";
      throw new AppError("conflict", message, { [ticket.field]: [message] });
    }
    throw error;
  } finally {
    object.body.destroy();
    // The object is the claimant's to delete: another finalize may be reading it.
    if (claimed) await deleteQuietly(storage, key);
  }
}

async function storageOrRefuse(): Promise<MediaStorage> {
  const storage = await getMediaStorage();
  if (!storage) throw new AppError("storage_unavailable", "Uploads are off on this server (MEDIA_STORAGE=none).");
  return storage;
}

async function deleteQuietly(storage: MediaStorage, key: string) {
  await storage.delete({ key }).catch((error: unknown) => {
    console.error("[framehook] could not delete a posted upload (the bucket's lifecycle rule will):", key, error instanceof Error ? error.message : error);
  });
}

type Ticket = { id: string; ownerId: string; model: string; field: string; expires: number };

const ticketKey = () => createHmac("sha256", env.WEBHOOK_SECRET).update("framehook upload tickets").digest();
const sign = (payload: string) => createHmac("sha256", ticketKey()).update(payload).digest("base64url");

function signTicket(ticket: Ticket): string {
  const payload = Buffer.from(JSON.stringify(ticket)).toString("base64url");
  return `${payload}.${sign(payload)}`;
}

function readTicket(token: string): Ticket | null {
  const [payload, sig, extra] = token.split(".");
  if (!payload || !sig || extra !== undefined || token.length > 1000 || !safeEqual(sig, sign(payload))) return null;
  try {
    const ticket = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Ticket;
    return typeof ticket.id === "string" && typeof ticket.ownerId === "string" && typeof ticket.expires === "number" ? ticket : null;
  } catch {
    return null;
  }
}
