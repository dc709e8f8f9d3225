// Which browser a sign-in belongs to. An emailed link signs in whoever opens
// it, so the link alone never proves that the browser opening it asked for it
// (Eve can mail a victim her own link: login CSRF). Two HttpOnly cookies carry
// that proof instead:
// - the asker cookie, set by the sign-in form: a random nonce; the emailed link
//   carries its tag (a MAC of it), so only the browser holding the nonce
//   matches the link it asked for;
// - the claim cookie, set when a sign-in happened in this browser on purpose
//   (its own link, a passkey, an OAuth round trip): a MAC of the session's id.
//   Only a session with it may move this browser's guest to the account.
// Pure apart from the key, so that getViewer() reads it without loading Better Auth.
import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import { env } from "@/lib/env";
import { safeEqual } from "@/lib/viewer/safe-equal";

export const ASKER_COOKIE = "framehook_sign_in";
export const CLAIM_COOKIE = "framehook_claim";
/** The asker cookie outlives the link it was set for (15 minutes), so a late click in the same browser still matches. */
export const ASKER_MAX_AGE_SECONDS = 60 * 60;

const NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The browser's asker nonce if it has a well-formed one, else a new one. */
export function askerNonce(current: string | undefined): string {
  return current && NONCE_PATTERN.test(current) ? current : randomBytes(16).toString("base64url");
}

/** What the emailed link carries: a tag of the asking browser's nonce, never the nonce itself. */
export const askerTag = (nonce: string) => mac(`asker:${nonce}`);

/** True when this browser's asker cookie is the one the link was asked with. */
export function isAsker({ nonce, tag }: { nonce: string | undefined; tag: string | null | undefined }): boolean {
  if (!nonce || !tag || !NONCE_PATTERN.test(nonce)) return false;
  return safeEqual(tag, askerTag(nonce));
}

/** The emailed link: the app's confirmation page, with the token and the asking browser's tag. */
export function signInLinkUrl({ token, asker }: { token: string; asker?: unknown }): string {
  const url = new URL("/sign-in/link", env.PUBLIC_BASE_URL);
  url.searchParams.set("token", token);
  if (typeof asker === "string") url.searchParams.set("asker", asker);
  return url.toString();
}

/** The claim cookie's value for a session signed in on purpose in this browser. */
export const claimProof = (sessionId: string) => mac(`claim:${sessionId}`);

/** HttpOnly, for the whole site (getViewer reads it), as long as a session lasts at most. */
export const claimCookieOptions = () => ({
  httpOnly: true,
  sameSite: "lax" as const,
  secure: env.NODE_ENV === "production" && env.PUBLIC_BASE_URL.startsWith("https:"),
  path: "/",
  maxAge: 30 * 24 * 60 * 60,
});

export function mayClaim({ proof, sessionId }: { proof: string | undefined; sessionId: string }): boolean {
  return Boolean(proof) && safeEqual(proof!, claimProof(sessionId));
}

/** A key of its own, derived from the auth secret, so that no key signs two kinds of thing. */
function mac(payload: string): string {
  const secret = env.AUTH_SECRET ?? env.WEBHOOK_SECRET;
  const key = createHmac("sha256", secret).update("framehook sign-in binding v1").digest();
  return createHmac("sha256", key).update(payload).digest("base64url");
}
