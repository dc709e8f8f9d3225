// A public link's token. It is an HMAC under WEBHOOK_SECRET of what is
// shared (a generation, or a comparison: a batch) and a random 128-bit seed, 256 bits written as 43
// base64url characters. The database keeps the seed and the token's SHA-256
// (what a visitor's link is looked up by), never the token: a copy of the
// database alone opens no shared video, yet the owner's pages can show the
// link again (the server derives it from the seed). A new seed on every
// share, so sharing again makes a new link and the old one stays dead.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { safeEqual } from "@/lib/viewer/safe-equal";

/** 32 bytes of HMAC-SHA256 in base64url, unpadded. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** 16 random bytes: what makes each share's token unguessable even to someone who knows the secret. */
export const newShareSeed = (): string => randomBytes(16).toString("base64url");

/** What a link shares: a generation (/v/<token>) or a comparison (/c/<token>). */
export type ShareSubject = { generationId: string } | { batchId: string };

// A batch's message has a prefix of its own, so a comparison's token never opens a video or the reverse.
const messageOf = (subject: ShareSubject, seed: string) =>
  "batchId" in subject ? `share:batch:${subject.batchId}:${seed}` : `share:${subject.generationId}:${seed}`;

export function shareTokenFor(share: ShareSubject & { seed: string }, secret: string): string {
  return createHmac("sha256", secret).update(messageOf(share, share.seed)).digest("base64url");
}

/** A new link for `subject`: the seed and key to store, and the token only its owner's pages show. */
export function newShare(subject: ShareSubject, secret: string): { seed: string; key: string; token: string } {
  const seed = newShareSeed();
  const token = shareTokenFor({ ...subject, seed }, secret);
  return { seed, key: shareKeyOf(token), token };
}

/** What the database stores and looks a link up by. */
export const shareKeyOf = (token: string): string => createHash("sha256").update(token).digest("base64url");

export const isShareToken = (value: string): boolean => SHARE_TOKEN_PATTERN.test(value);

/**
 * True when `given` is the token of this share. The row was found by the
 * token's hash; this compares the token itself, in constant time, with the
 * one the seed and the secret make (a rotated secret kills every link).
 */
export function verifyShareToken(given: string, share: ShareSubject & { seed: string | null }, secret: string): boolean {
  if (!share.seed) return false;
  return safeEqual(given, shareTokenFor({ ...share, seed: share.seed }, secret));
}
