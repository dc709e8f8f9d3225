// Who is asking: the one seam between Framehook and a sign-in system.
// A signed-in account (lib/auth: email links, passkeys, OAuth) is
// "user:<id>"; everyone else is a guest, known by a random id in a signed
// cookie (viewer-cookie.ts) that proxy.ts issues. To use Auth.js, Clerk,
// Supabase Auth or your own session instead, replace getViewer()
// (docs/accounts.md); nothing else in the app reads identity.
import "server-only";
import { accountOwnerId, readAccountSession, type AccountSession } from "@/lib/auth/session";
import { CLAIM_COOKIE, mayClaim } from "@/lib/auth/sign-in-binding";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { readCookie, VIEWER_MAX_AGE_SECONDS, verifyViewerCookie, viewerCookieName } from "./viewer-cookie";

export type Viewer = {
  /** Stable and opaque: stored as every generation's ownerId. */
  id: string;
  /**
   * True only for a viewer a real sign-in vouches for. Anyone can become a
   * new anonymous viewer by dropping a cookie, so anonymous submissions are
   * also bounded per client address (SPEND_LIMIT_ADDRESS_CREDITS); a signed-in
   * viewer is bounded by their own cap (SPEND_LIMIT_CREDITS) and the total
   * cap only, so that colleagues behind one office address do not share one.
   * Left out, the viewer counts as anonymous: the safe side for money.
   */
  signedIn?: boolean;
  /** The signed-in account, when there is one. */
  account?: AccountSession;
  /**
   * The guest of this browser's visitor cookie, signed in or not: what the
   * guest → account claim moves (lib/viewer/claim-guest.ts). Read from the
   * signed cookie only, never from a request body.
   */
  guestId?: string | null;
  /**
   * Whether this signed-in browser may move its guest to the account: true
   * when it signed in on purpose (a passkey, OAuth, or an email link it asked
   * for itself), false when it opened a link someone else asked for
   * (lib/auth/sign-in-binding.ts).
   */
  mayClaimGuest?: boolean;
};

/**
 * The viewer of this request, or null when nobody is identified (routes then
 * answer 401 and pages show an empty gallery). Route handlers pass their
 * request; pages and server actions call it bare and it reads next/headers.
 *
 * With Auth.js, for example, this whole function becomes:
 *   const session = await auth();
 *   return session?.user?.id ? { id: `user:${session.user.id}`, signedIn: true } : null;
 */
export async function getViewer(request?: Request): Promise<Viewer | null> {
  const headers = request ? request.headers : await requestHeaders();
  const guestId = verifyViewerCookie(readCookie(headers.get("cookie"), visitorCookieName()), viewerSecret());
  // Route handlers (handed their request) and server actions can set cookies: a session they use is renewed.
  const account = await readAccountSession(headers, { renew: request !== undefined || headers.has("next-action") });
  if (account) {
    const mayClaimGuest = mayClaim({ proof: readCookie(headers.get("cookie"), CLAIM_COOKIE), sessionId: account.sessionId });
    return { id: accountOwnerId(account.userId), signedIn: true, account, guestId, mayClaimGuest };
  }
  return guestId ? { id: guestId, guestId } : null;
}

async function requestHeaders(): Promise<Headers> {
  // Imported lazily so that this module also loads outside Next (the test route server).
  const { headers } = await import("next/headers");
  return headers();
}

/** VIEWER_SECRET, or else WEBHOOK_SECRET (a key derived from it: see viewer-cookie.ts). Rotating it starts everyone afresh. */
export function viewerSecret(): string {
  return env.VIEWER_SECRET ?? env.WEBHOOK_SECRET;
}

export const viewerCookieOptions = () =>
  ({
    httpOnly: true,
    sameSite: "lax",
    secure: cookiesAreSecure(),
    path: "/",
    maxAge: VIEWER_MAX_AGE_SECONDS,
  }) as const;

/** Secure wherever the app is served over https; `npm start` on http://localhost must still work. */
export const cookiesAreSecure = () => env.NODE_ENV === "production" && env.PUBLIC_BASE_URL.startsWith("https:");

/** The visitor cookie's name here: __Host-framehook_viewer over https, framehook_viewer otherwise. */
export const visitorCookieName = () => viewerCookieName(cookiesAreSecure());

/** With REQUIRE_SIGN_IN, guests may look but not spend: generating and uploading need an account. */
export function assertMayCreate(viewer: Viewer): void {
  if (env.REQUIRE_SIGN_IN && !viewer.signedIn) throw new AppError("sign_in_required", "Sign in to create videos (/sign-in).");
}
