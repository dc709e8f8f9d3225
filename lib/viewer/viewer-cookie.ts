// The anonymous visitor cookie: "<id>.<issued>.<mac>", an HMAC under a key
// derived from the server secret. Pure (no env), like callback-token.ts, so
// tests, scripts and benchmarks can sign one; get-viewer.ts supplies the secret.
import { createHmac, randomBytes } from "node:crypto";
import { safeEqual } from "./safe-equal";

export const VIEWER_COOKIE = "framehook_viewer";
/**
 * The cookie's name as set: over https it takes the __Host- prefix, which
 * browsers accept only Secure, with Path=/ and no Domain, so neither a
 * subdomain nor a plain-http page can set or shadow it.
 */
export const viewerCookieName = (secure: boolean) => (secure ? `__Host-${VIEWER_COOKIE}` : VIEWER_COOKIE);
/** Browsers keep a cookie 400 days at most; a signed visit older than that is a new visitor. */
export const VIEWER_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;
/** A cookie older than this is signed again on the next visit, so an active visitor never expires. */
const RENEW_AFTER_SECONDS = 7 * 24 * 60 * 60;
const CLOCK_SKEW_SECONDS = 5 * 60;
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export function newViewerId(): string {
  return randomBytes(16).toString("base64url");
}

export function signViewerCookie(id: string, secret: string, now = Date.now()): string {
  const issued = String(Math.floor(now / 1000));
  return `${id}.${issued}.${mac(`${id}.${issued}`, secret)}`;
}

/** The visitor's id if the cookie is well formed, signed under `secret` and not expired; otherwise null. */
export function verifyViewerCookie(value: string | undefined, secret: string, now = Date.now()): string | null {
  if (!value || value.length > 200) return null;
  const [id, issued, signature, ...rest] = value.split(".");
  if (rest.length || !id || !issued || !signature || !ID_PATTERN.test(id) || !/^\d{1,12}$/.test(issued)) return null;
  const age = now / 1000 - Number(issued);
  if (age > VIEWER_MAX_AGE_SECONDS || age < -CLOCK_SKEW_SECONDS) return null;
  return safeEqual(signature, mac(`${id}.${issued}`, secret)) ? id : null;
}

/**
 * What proxy.ts does on every request: keep a valid cookie, sign a week-old
 * one again (same id), and give anyone without a valid one (none, forged,
 * tampered, expired) a brand-new id, never someone else's.
 */
export function ensureViewerCookie(cookieHeader: string | null, secret: string, now = Date.now(), name = VIEWER_COOKIE): { value: string; renewed: boolean } {
  const current = readCookie(cookieHeader, name);
  const id = verifyViewerCookie(current, secret, now);
  if (id && current) {
    const issued = Number(current.split(".")[1]);
    if (now / 1000 - issued < RENEW_AFTER_SECONDS) return { value: current, renewed: false };
    return { value: signViewerCookie(id, secret, now), renewed: true };
  }
  return { value: signViewerCookie(newViewerId(), secret, now), renewed: true };
}

/** The value of one cookie in a Cookie header (the first, as browsers send the most specific first). */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A key of its own, derived from the secret, so that no key signs two kinds of thing. */
function mac(payload: string, secret: string): string {
  const key = createHmac("sha256", secret).update("framehook viewer cookie v1").digest();
  return createHmac("sha256", key).update(payload).digest("base64url");
}
