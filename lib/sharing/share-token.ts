// A public link's token. It is an HMAC under WEBHOOK_SECRET of the
// generation's id and a random 128-bit seed, 256 bits written as 43
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

export function shareTokenFor({ generationId, seed }: { generationId: string; seed: string }, secret: string): string {
  return createHmac("sha256", secret).update(`share:${generationId}:${seed}`).digest("base64url");
}

/** What the database stores and looks a link up by. */
export const shareKeyOf = (token: string): string => createHash("sha256").update(token).digest("base64url");

export const isShareToken = (value: string): boolean => SHARE_TOKEN_PATTERN.test(value);

/**
 * True when `given` is the token of this share. The row was found by the
 * token's hash; this compares the token itself, in constant time, with the
 * one the seed and the secret make (a rotated secret kills every link).
 */
export function verifyShareToken(given: string, share: { generationId: string; seed: string | null }, secret: string): boolean {
  if (!share.seed) return false;
  return safeEqual(given, shareTokenFor({ generationId: share.generationId, seed: share.seed }, secret));
}
