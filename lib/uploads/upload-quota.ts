// The upload quotas: what one owner's uploads may take (UPLOAD_QUOTA_BYTES),
// what anonymous visitors from one client address may take together, whatever
// they do with cookies (UPLOAD_ADDRESS_QUOTA_BYTES), and what every upload no
// submission has used yet may take together (UPLOAD_UNUSED_TOTAL_BYTES); and
// how many uploads one address may start per window. An upload reserves its
// bytes before its body is read: the upload store runs this check inside the
// reservation's transaction (lib/uploads/upload-store.ts), so concurrent uploads
// cannot overshoot, and what is held counts the reservations still live.
import "server-only";
import type { Transaction } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { formatBytes } from "@/lib/models/media-limits";
import { hitRateLimit, visitorKey } from "@/lib/rate-limit";
import type { Viewer } from "@/lib/viewer/get-viewer";


/** How long a reservation counts: past the longest an upload may take to arrive and be checked. */
export const RESERVATION_MS = 30 * 60_000;
/** What a client is asked to wait when everyone's unused uploads fill the server: the sweep frees them within hours. */
const CAPACITY_RETRY_AFTER_SECONDS = 600;

/** Whom an upload counts against, beside its owner: an anonymous uploader's client address (lib/rate-limit/index.ts visitorKey). */
export type UploadClient = { key: string; anonymous: boolean };

/** The client a request comes from, as the quotas count it. */
export const uploadClientOf = (headers: Headers, viewer: Viewer): UploadClient => ({ key: visitorKey(headers), anonymous: !viewer.signedIn });

/** One quota: the lock row that queues its uploads, the uploads and reservations it sums (SQL conditions), its limit, and what a refusal says. */
type Quota = { lock: string; uploads: Prisma.Sql; reservations: Prisma.Sql; limit: number; refuse: (held: number) => AppError };

/** In the order their locks are taken (total, address, owner), so two uploads sharing quotas never wait for each other in a cycle. */
function quotasFor({ ownerId, clientKey }: { ownerId: string; clientKey: string | null }): Quota[] {
  const quotas: Quota[] = [];
  if (env.UPLOAD_UNUSED_TOTAL_BYTES > 0) {
    // Unused uploads, and every live reservation (an upload being received is not used yet).
    quotas.push({ lock: "total", uploads: Prisma.sql`"usedAt" IS NULL`, reservations: Prisma.sql`TRUE`, limit: env.UPLOAD_UNUSED_TOTAL_BYTES, refuse: capacityError });
  }
  if (clientKey && env.UPLOAD_ADDRESS_QUOTA_BYTES > 0) {
    const scope = Prisma.sql`"clientKey" = ${clientKey}`;
    quotas.push({ lock: `address:${clientKey}`, uploads: scope, reservations: scope, limit: env.UPLOAD_ADDRESS_QUOTA_BYTES, refuse: addressQuotaError });
  }
  const scope = Prisma.sql`"ownerId" = ${ownerId}`;
  quotas.push({ lock: `owner:${ownerId}`, uploads: scope, reservations: scope, limit: env.UPLOAD_QUOTA_BYTES, refuse: ownerQuotaError });
  return quotas;
}

/**
 * The check the upload store runs inside a reservation's transaction, in two
 * statements whatever the number of quotas: the first writes every quota's
 * UploadLock row (on PostgreSQL their row locks queue the concurrent uploads
 * of each scope; on SQLite the transaction holds the one write lock from the
 * first write on), the second sums what each scope holds, seeing what the
 * upload before it committed. Throws the first quota's refusal that `bytes`
 * would pass; returns the bytes granted: `bytes`, or for a body of unknown
 * size the room left, up to `maxBytes`.
 */
export function uploadQuotaCheck({ ownerId, clientKey, now = Date.now() }: { ownerId: string; clientKey: string | null; now?: number }) {
  const quotas = quotasFor({ ownerId, clientKey });
  return async (tx: Transaction, { bytes, maxBytes }: { bytes: number | null; maxBytes: number }): Promise<number> => {
    const at = new Date(now);
    // One row each, inserted in the list's order: the order their row locks are taken.
    await tx.$executeRaw`
      INSERT INTO "UploadLock" ("scope", "lockedAt") VALUES ${Prisma.join(quotas.map((quota) => Prisma.sql`(${quota.lock}, ${at})`))}
      ON CONFLICT ("scope") DO UPDATE SET "lockedAt" = excluded."lockedAt"`;
    const held = await heldBy(tx, quotas, at);
    let room = maxBytes;
    quotas.forEach((quota, i) => {
      // A body of unknown size needs at least a byte of room.
      if (held[i]! + (bytes ?? 1) > quota.limit) throw quota.refuse(held[i]!);
      room = Math.min(room, quota.limit - held[i]!);
    });
    return bytes ?? room;
  };
}

/** Bytes each quota's scope holds, in one statement: its uploads (for the total, the unused ones) plus its live reservations. */
async function heldBy(tx: Transaction, quotas: Quota[], at: Date): Promise<number[]> {
  const sums = quotas.map(
    ({ uploads, reservations }, i) => Prisma.sql`
      (SELECT COALESCE(SUM("size"), 0) FROM "Upload" WHERE ${uploads}) +
      (SELECT COALESCE(SUM("bytes"), 0) FROM "UploadReservation" WHERE ${reservations} AND "expiresAt" > ${at}) AS ${Prisma.raw(`"q${i}"`)}`,
  );
  const [row] = await tx.$queryRaw<Record<string, bigint | number>[]>`SELECT ${Prisma.join(sums)}`;
  return quotas.map((_, i) => Number(row?.[`q${i}`] ?? 0));
}

/** Counts an upload (or a presigned form) against its address's rate; throws 429 with Retry-After past it. */
export async function hitUploadRateLimit({ client }: { client: UploadClient }): Promise<void> {
  const limit = await hitRateLimit({ key: `upload:${client.key}`, limit: env.UPLOAD_RATE_LIMIT, windowSeconds: env.UPLOAD_RATE_WINDOW_SECONDS });
  if (limit.allowed) return;
  throw new AppError("rate_limited", `Too many uploads. Try again in ${limit.retryAfterSeconds} s.`, undefined, { "Retry-After": String(limit.retryAfterSeconds) });
}

const UNUSED_GO = () => `unused ones are deleted after ${env.UPLOAD_UNUSED_HOURS} h`;

export const ownerQuotaError = (held: number) =>
  new AppError("upload_quota", `Your uploads take ${formatBytes(held)} of the ${formatBytes(env.UPLOAD_QUOTA_BYTES)} each visitor may keep; ${UNUSED_GO()}.`);

const addressQuotaError = (held: number) =>
  new AppError(
    "address_upload_quota",
    `Uploads from your network take ${formatBytes(held)} of the ${formatBytes(env.UPLOAD_ADDRESS_QUOTA_BYTES)} they may keep together ` +
      `(everyone without a sign-in at your address counts together); ${UNUSED_GO()}.`,
  );

/** Says when, never how much: the server's storage is the operator's business. */
const capacityError = () =>
  new AppError("upload_capacity", "This server is holding as many unused uploads as it can right now: try again later.", undefined, {
    "Retry-After": String(CAPACITY_RETRY_AFTER_SECONDS),
  });
