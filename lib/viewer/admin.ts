// Who may open /admin: a signed-in account whose verified email is listed in
// ADMIN_EMAILS (the admin role), or whoever knows ADMIN_PASSWORD, remembered
// for a few hours by a signed HttpOnly cookie scoped to /admin; failed
// password attempts are limited per client address and across every address,
// in the database (every instance counts the same). A fork with roles of its
// own replaces isAdmin() with its check.
import "server-only";
import { env } from "@/lib/env";
import { addressKey, clearRateLimit, hitRateLimit } from "@/lib/rate-limit";
import { cookiesAreSecure, getViewer } from "./get-viewer";
import { signPasswordSession, verifyPasswordSession } from "./password-session";
import { safeEqual } from "./safe-equal";

export const ADMIN_COOKIE = "framehook_admin";
const SESSION_SECONDS = 8 * 60 * 60;
/** Failed sign-ins one client address may make per window; a success clears its count. */
export const SIGN_IN_ATTEMPTS = 5;
const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** Passwords compared per window from every address together: guesses spread over many addresses are bounded too. */
export const SIGN_IN_ATTEMPTS_ALL = 50;
const ALL_ADDRESSES_KEY = "admin-sign-in:all";
/** Every wrong password is answered this late, so that guesses one after another are slow too. */
const FAILURE_DELAY_MS = 1_000;
const WRONG_PASSWORD = "That is not the admin password.";

/** False when /admin is off (neither ADMIN_PASSWORD nor ADMIN_EMAILS): the page is then a 404. */
export const adminEnabled = () => env.ADMIN_PASSWORD !== undefined || env.ADMIN_EMAILS.length > 0;

/** An account with the admin role: its email verified (an email link proves it) and listed in ADMIN_EMAILS. */
export const hasAdminRole = (account: { email: string; emailVerified: boolean } | undefined) =>
  Boolean(account?.emailVerified && env.ADMIN_EMAILS.includes(account.email.toLowerCase()));

export async function isAdmin(): Promise<boolean> {
  if (env.ADMIN_EMAILS.length && hasAdminRole((await getViewer())?.account)) return true;
  if (!env.ADMIN_PASSWORD) return false;
  const { cookies } = await import("next/headers");
  return verifyAdminSession((await cookies()).get(ADMIN_COOKIE)?.value, env.ADMIN_PASSWORD);
}

export type AdminSignIn = { ok: true } | { ok: false; message: string };

/**
 * One sign-in attempt from `address` (the client's, IPv6 by its /48). Each
 * attempt is counted before the password is compared, in the database, so
 * concurrent guesses cannot pass the limit either; past it, even the right
 * password waits for the window to end. Failures and refusals are logged with
 * the address, never with what was typed.
 */
export async function attemptAdminSignIn({
  password,
  address,
  now = Date.now(),
}: {
  password: unknown;
  address: string;
  now?: number;
}): Promise<AdminSignIn> {
  if (!adminEnabled()) return { ok: false, message: WRONG_PASSWORD };
  const key = `admin-sign-in:${addressKey(address)}`;
  const attempt = await hitRateLimit({ key, limit: SIGN_IN_ATTEMPTS, windowSeconds: SIGN_IN_WINDOW_SECONDS, now });
  if (!attempt.allowed) {
    // Logged when the address is shut out, then every 100th attempt: a flood is seen without flooding the log.
    if (attempt.count === SIGN_IN_ATTEMPTS + 1 || attempt.count % 100 === 0) {
      console.warn(`[framehook] admin sign-in refused for ${address}: ${attempt.count} attempts within ${SIGN_IN_WINDOW_SECONDS / 60} min`);
    }
    const minutes = Math.ceil(attempt.retryAfterSeconds / 60);
    return { ok: false, message: `Too many failed attempts from your network. Try again in ${minutes} min.` };
  }
  // Counted only once the address's own limit let the attempt through, so one address's flood does not use up everyone's.
  const everyone = await hitRateLimit({ key: ALL_ADDRESSES_KEY, limit: SIGN_IN_ATTEMPTS_ALL, windowSeconds: SIGN_IN_WINDOW_SECONDS, now });
  if (!everyone.allowed) {
    if (everyone.count === SIGN_IN_ATTEMPTS_ALL + 1 || everyone.count % 100 === 0) {
      console.warn(`[framehook] admin sign-in refused for every address: ${everyone.count} attempts within ${SIGN_IN_WINDOW_SECONDS / 60} min`);
    }
    return { ok: false, message: `Too many failed attempts on this server. Try again in ${Math.ceil(everyone.retryAfterSeconds / 60)} min.` };
  }
  if (typeof password === "string" && passwordIsRight(password)) {
    await clearRateLimit({ key });
    await clearRateLimit({ key: ALL_ADDRESSES_KEY });
    return { ok: true };
  }
  console.warn(`[framehook] admin sign-in failed from ${address} (${attempt.count} of ${SIGN_IN_ATTEMPTS} within ${SIGN_IN_WINDOW_SECONDS / 60} min)`);
  await new Promise((resolve) => setTimeout(resolve, FAILURE_DELAY_MS));
  return { ok: false, message: WRONG_PASSWORD };
}

function passwordIsRight(given: string): boolean {
  return env.ADMIN_PASSWORD !== undefined && safeEqual(given, env.ADMIN_PASSWORD);
}

const ADMIN_SESSION = "framehook admin session v2";

export const signAdminSession = (password: string, now = Date.now()) => signPasswordSession({ purpose: ADMIN_SESSION, password, seconds: SESSION_SECONDS, now });

export const verifyAdminSession = (value: string | undefined, password: string, now = Date.now()) => verifyPasswordSession({ purpose: ADMIN_SESSION, value, password, now });

export const adminCookieOptions = () =>
  ({
    httpOnly: true,
    sameSite: "strict",
    secure: cookiesAreSecure(),
    path: "/admin",
    maxAge: SESSION_SECONDS,
  }) as const;
