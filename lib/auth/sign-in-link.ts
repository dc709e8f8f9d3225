// The emailed sign-in link's two steps. Opening it (GET /sign-in/link, which
// mail scanners do too, with or without running its JavaScript) only reads
// whether the link still works and for which address; the one-time token is
// used when the person presses the page's button (a POST, which scanners do
// not send). Better Auth verifies the token and sets the session cookie.
import "server-only";
import { createHash } from "node:crypto";
import { isAPIError } from "better-auth/api";
import { prisma } from "@/lib/db";

/** Better Auth's links are 32 letters; anything else is not one of ours. */
const TOKEN_PATTERN = /^[A-Za-z]{32}$/;
export const isLinkToken = (token: unknown): token is string => typeof token === "string" && TOKEN_PATTERN.test(token);

/** The address an unused, unexpired link signs in, or null. Reads only: the link stays usable. */
export async function findSignInLink({ token }: { token: string }): Promise<{ email: string } | null> {
  if (!isLinkToken(token)) return null;
  // Stored as Better Auth's magic-link plugin stores it (storeToken: "hashed"): SHA-256, base64url without padding.
  const identifier = createHash("sha256").update(token).digest("base64url");
  const row = await prisma.verification.findFirst({ where: { identifier, expiresAt: { gt: new Date() } }, select: { value: true } });
  if (!row) return null;
  try {
    const { email } = JSON.parse(row.value) as { email?: unknown };
    return typeof email === "string" ? { email } : null;
  } catch {
    return null;
  }
}

/**
 * Uses the link: signs this request's browser in (Better Auth's cookie, set
 * through next/headers in a server action) and returns the new session, or
 * null when the link has expired or was used.
 */
export async function redeemSignInLink({ token, headers }: { token: string; headers: Headers }): Promise<{ sessionId: string; userId: string } | null> {
  if (!isLinkToken(token)) return null;
  const { auth } = await import("./auth");
  try {
    const { session } = await auth.api.magicLinkVerify({ query: { token }, headers });
    return { sessionId: session.id, userId: session.userId };
  } catch (error) {
    // Better Auth answers a used or expired token with a redirect to its error page: here, a refusal.
    if (isAPIError(error)) return null;
    throw error;
  }
}
