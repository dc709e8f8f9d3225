// Who is asking: the one seam between Framehook and a sign-in system.
// By default every visitor is anonymous, known by a random id in a signed
// cookie (viewer-cookie.ts) that proxy.ts issues. To use Auth.js, Clerk,
// Supabase Auth or your own session, replace getViewer() (docs/operations.md:
// "Plug in your sign-in"); nothing else in the app reads identity.
import "server-only";
import { env } from "@/lib/env";
import { readCookie, VIEWER_COOKIE, VIEWER_MAX_AGE_SECONDS, verifyViewerCookie } from "./viewer-cookie";

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
};

/**
 * The viewer of this request, or null when nobody is identified (routes then
 * answer 401 and pages show an empty gallery). Route handlers pass their
 * request; pages and server actions call it bare and it reads next/headers.
 *
 * With Auth.js, for example, this whole function becomes:
 *   const session = await auth();
 *   return session?.user?.id ? { id: `user:${session.user.id}` } : null;
 */
export async function getViewer(request?: Request): Promise<Viewer | null> {
  const cookieHeader = request ? request.headers.get("cookie") : (await requestHeaders()).get("cookie");
  const id = verifyViewerCookie(readCookie(cookieHeader, VIEWER_COOKIE), viewerSecret());
  return id ? { id } : null;
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
