// The optional access gate of a deployed instance (APP_PASSWORD: HTTP Basic
// auth, any user name). proxy.ts applies it to every page and API; the few
// routes kept out of the proxy so that their bodies stream (uploads) apply it
// themselves. Passwords are counted per client address and across every
// address, in the database, as the admin password's are (lib/viewer/admin.ts):
// every instance counts the same, and guesses spread over many addresses are
// bounded too. A browser that gave the right password gets a pass cookie, and
// with it (and the password) is let through without the database: during a
// flood of guesses, people already in keep working.
import { brand } from "@/lib/brand";
import { env } from "@/lib/env";
import { addressKey, releaseRateLimit, reserveRateLimit } from "@/lib/rate-limit";
import { cookiesAreSecure } from "./get-viewer";
import { signPasswordSession, verifyPasswordSession } from "./password-session";
import { safeEqual } from "./safe-equal";
import { readCookie } from "./viewer-cookie";

/** Wrong passwords one client address may send per window. */
export const GATE_ATTEMPTS = 10;
/** Wrong passwords from every address together per window. */
export const GATE_ATTEMPTS_ALL = 200;
const GATE_WINDOW_SECONDS = 15 * 60;
const ALL_ADDRESSES_KEY = "app-password:all";
const PASS_PURPOSE = "framehook access gate pass v1";
const PASS_SECONDS = 12 * 60 * 60;

export function passwordMatches(header: string | null, password: string): boolean {
  if (!header?.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  return safeEqual(decoded.slice(decoded.indexOf(":") + 1), password);
}

/** Whether a request offers a password at all: one without is refused and not counted (a browser asks first without). */
export const offersPassword = (authorization: string | null) => !env.APP_PASSWORD || Boolean(authorization?.startsWith("Basic "));

export const accessGateHeaders = () => ({ "WWW-Authenticate": `Basic realm="${brand.name}", charset="UTF-8"` });

/** The pass cookie's name: __Host- prefixed over https. */
export const gatePassCookieName = () => (cookiesAreSecure() ? "__Host-framehook_gate" : "framehook_gate");

export const gatePassCookieOptions = () => ({ httpOnly: true, sameSite: "lax", secure: cookiesAreSecure(), path: "/", maxAge: PASS_SECONDS }) as const;

/** `pass`: a pass cookie to give the browser (it came without a valid one). */
export type AccessGateOutcome = { ok: true; pass?: string } | { ok: false; status: 401 | 429; message: string; headers: Record<string, string> };

const challenge = (): AccessGateOutcome => ({ ok: false, status: 401, message: "Authentication required.", headers: accessGateHeaders() });

/**
 * One request at the gate from `address` (visitorAddress: IPv6 by its /48),
 * with the request's Cookie header. With a valid pass and the right password it
 * passes at once. Otherwise the password takes a place in the address's bound
 * and then in every address's before it is compared, each one conditional
 * write, so of guesses sent at the same moment no more than the bound are
 * compared; the right password gives its places back (and gets a pass), a
 * wrong one keeps them. Past either bound, every password, the right one too,
 * is refused 429 until the window ends, uncompared and uncounted, so a guess
 * past the bound learns nothing. Failures are logged with the address, never
 * with what was typed.
 */
export async function checkAccessGate({
  authorization,
  cookies = null,
  address,
  now = Date.now(),
}: {
  authorization: string | null;
  cookies?: string | null;
  address: string;
  now?: number;
}): Promise<AccessGateOutcome> {
  const password = env.APP_PASSWORD;
  if (!password) return { ok: true };
  if (!authorization?.startsWith("Basic ")) return challenge();
  if (verifyPasswordSession({ purpose: PASS_PURPOSE, value: readCookie(cookies, gatePassCookieName()), password, now }) && passwordMatches(authorization, password)) return { ok: true };

  const key = `app-password:${addressKey(address)}`;
  const mine = await reserveRateLimit({ key, limit: GATE_ATTEMPTS, windowSeconds: GATE_WINDOW_SECONDS, now });
  if (!mine.allowed) return tooMany("your network", mine.retryAfterSeconds);
  // Counted for everyone only while the address's own bound lets it through, so one address's flood does not use up everyone's.
  const everyone = await reserveRateLimit({ key: ALL_ADDRESSES_KEY, limit: GATE_ATTEMPTS_ALL, windowSeconds: GATE_WINDOW_SECONDS, now });
  if (!everyone.allowed) {
    await releaseRateLimit({ key, windowStart: mine.windowStart });
    return tooMany("this server", everyone.retryAfterSeconds);
  }
  if (passwordMatches(authorization, password)) {
    await releaseRateLimit({ key, windowStart: mine.windowStart });
    await releaseRateLimit({ key: ALL_ADDRESSES_KEY, windowStart: everyone.windowStart });
    return { ok: true, pass: signPasswordSession({ purpose: PASS_PURPOSE, password, seconds: PASS_SECONDS, now }) };
  }
  // Past the bounds nothing is compared, so at most GATE_ATTEMPTS_ALL lines a window: a flood is seen without flooding the log.
  console.warn(`[framehook] wrong APP_PASSWORD from ${address} (${mine.count} of ${GATE_ATTEMPTS} within ${GATE_WINDOW_SECONDS / 60} min; ${everyone.count} of ${GATE_ATTEMPTS_ALL} from every address)`);
  return challenge();
}

function tooMany(shutBy: string, retryAfterSeconds: number): AccessGateOutcome {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return { ok: false, status: 429, message: `Too many wrong passwords from ${shutBy}. Try again in ${minutes} min.`, headers: { "Retry-After": String(retryAfterSeconds) } };
}
