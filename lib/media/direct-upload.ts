// Uploads that go straight from the browser to an S3 bucket, read top to
// bottom: presign (which field, quota, a form whose signed policy fixes the
// key under uploads/incoming/ and caps the size) → the browser posts the file
// to the bucket → finalize (the app reads the object back and runs the checks
// of every upload on it, then deletes the posted object, kept or refused).
// Nothing waits for a storage callback: the browser's finalize call is the
// only signal, and a posted object never finalized is left to the bucket's
// lifecycle rule (docs/operations.md).
import "server-only";
import { createHmac } from "node:crypto";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { formatBytes } from "@/lib/models/media-limits";
import { safeEqual } from "@/lib/viewer/safe-equal";
import { mediaFieldOf, quotaMessage, receiveUpload, toUploadView, type UploadView } from "./receive-upload";
import { getMediaStorage, type MediaStorage } from "./storage";
import { bytesHeldBy, findOwnUpload, newUploadId } from "./upload-store";

/** How long the bucket takes the post: long enough to start it, short enough that a leaked form is soon useless. */
export const PRESIGNED_POST_SECONDS = 600;
/** How long a finalize may follow: the post may take a while once started. */
const FINALIZE_SECONDS = 3 * 3600;

export const incomingKey = (id: string) => `uploads/incoming/${id}`;

export type UploadStart =
  | { method: "stream"; url: string }
  | { method: "post"; id: string; url: string; fields: Record<string, string>; maxBytes: number; expiresAt: string; finalize: { url: string; token: string } };

/** How the client sends a file for this model field: streamed to POST /api/uploads, or posted to the bucket. */
export async function startUpload({ ownerId, modelId, fieldName, size }: { ownerId: string; modelId: string | null; fieldName: string | null; size?: number }): Promise<UploadStart> {
  const { model, field } = mediaFieldOf(modelId, fieldName);
  const refuse = (code: "payload_too_large" | "upload_quota", message: string) => new AppError(code, message, { [field.name]: [message] });
  const { maxBytes } = field.limits;
  if (size !== undefined && size > maxBytes) throw refuse("payload_too_large", `This file is ${formatBytes(size)}; ${model.label} takes up to ${formatBytes(maxBytes)}.`);
  const held = await bytesHeldBy({ ownerId });
  if (held >= env.UPLOAD_QUOTA_BYTES) throw refuse("upload_quota", quotaMessage(held));
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
 * its own key). Finalizing twice answers the same upload.
 */
export async function finalizeUpload({ ownerId, token }: { ownerId: string; token: string }): Promise<{ upload: UploadView; created: boolean }> {
  const ticket = readTicket(token);
  // Another owner's ticket answers as a missing upload does.
  if (!ticket || ticket.ownerId !== ownerId) throw new AppError("not_found", "No such upload.");
  const existing = await findOwnUpload({ id: ticket.id, ownerId });
  if (existing) return { upload: toUploadView(existing), created: false };

  const storage = await storageOrRefuse();
  const key = incomingKey(ticket.id);
  if (ticket.expires * 1000 < Date.now()) {
    await deleteQuietly(storage, key);
    throw new AppError("gone", "This upload was not finished in time: upload the file again.");
  }
  const object = await storage.get({ key });
  if (!object) throw new AppError("not_found", "No file has been posted for this upload yet.", { [ticket.field]: ["No file has been posted for this upload yet."] });
  try {
    const upload = await receiveUpload({ ownerId, modelId: ticket.model, fieldName: ticket.field, body: object.body, declaredBytes: object.size, id: ticket.id });
    return { upload, created: true };
  } catch (error) {
    // A twin finalize recorded it first.
    const twin = await findOwnUpload({ id: ticket.id, ownerId });
    if (twin) return { upload: toUploadView(twin), created: false };
    throw error;
  } finally {
    object.body.destroy();
    await deleteQuietly(storage, key);
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
