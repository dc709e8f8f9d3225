// The one way to compare a secret with what a request carries. Both sides are
// hashed first, so the comparison takes the same time whatever the lengths
// and contents; every password, token, cookie signature and bearer header in
// the app goes through here.
import { createHash, timingSafeEqual } from "node:crypto";

export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** True when the Authorization header is exactly `Bearer <secret>`; false when no secret is configured. */
export function hasBearerToken(header: string | null, secret: string | undefined): boolean {
  if (!secret || !header) return false;
  return safeEqual(header, `Bearer ${secret}`);
}

const digest = (value: string) => createHash("sha256").update(value).digest();
