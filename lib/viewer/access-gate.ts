// The optional access gate of a deployed instance (APP_PASSWORD: HTTP Basic
// auth, any user name). proxy.ts applies it to every page and API; the few
// routes kept out of the proxy so that their bodies stream (uploads) apply it
// themselves. Wrong passwords are counted per client address and across every
// address, in the database, as the admin password's are (lib/viewer/admin.ts):
// every instance counts the same, and guesses spread over many addresses are
// bounded too.
import { brand } from "@/lib/brand";
import { env } from "@/lib/env";
import { addressKey, hitRateLimit, readRateLimits } from "@/lib/rate-limit";
import { safeEqual } from "./safe-equal";

/** Wrong passwords one client address may send per window. */
export const GATE_ATTEMPTS = 10;
/** Wrong passwords from every address together per window. */
export const GATE_ATTEMPTS_ALL = 200;
const GATE_WINDOW_SECONDS = 15 * 60;
const ALL_ADDRESSES_KEY = "app-password:all";

export function passwordMatches(header: string | null, password: string): boolean {
  if (!header?.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  return safeEqual(decoded.slice(decoded.indexOf(":") + 1), password);
}

/** Whether a request offers a password at all: one without is refused and not counted (a browser asks first without). */
export const offersPassword = (authorization: string | null) => !env.APP_PASSWORD || Boolean(authorization?.startsWith("Basic "));

export const accessGateHeaders = () => ({ "WWW-Authenticate": `Basic realm="${brand.name}", charset="UTF-8"` });

export type AccessGateOutcome = { ok: true } | { ok: false; status: 401 | 429; message: string; headers: Record<string, string> };

const challenge = (): AccessGateOutcome => ({ ok: false, status: 401, message: "Authentication required.", headers: accessGateHeaders() });

/**
 * One request at the gate from `address` (visitorAddress: IPv6 by its /48).
 * Only wrong passwords are counted (every request of a person who knows it
 * carries it); past either bound, every password, the right one too, is
 * refused 429 until the window ends, so a guess past the bound learns
 * nothing. The bounds are read before the password is compared: guesses sent
 * at the same moment are each compared once, so at most the requests then in
 * flight pass the bound. Failures are logged with the address, never with
 * what was typed.
 */
export async function checkAccessGate({ authorization, address, now = Date.now() }: { authorization: string | null; address: string; now?: number }): Promise<AccessGateOutcome> {
  if (!env.APP_PASSWORD) return { ok: true };
  if (!authorization?.startsWith("Basic ")) return challenge();
  const key = `app-password:${addressKey(address)}`;
  const {
    counts: [mine, everyone],
    retryAfterSeconds,
  } = await readRateLimits({ keys: [key, ALL_ADDRESSES_KEY], windowSeconds: GATE_WINDOW_SECONDS, now });
  const shutBy = mine! >= GATE_ATTEMPTS ? "your network" : everyone! >= GATE_ATTEMPTS_ALL ? "this server" : null;
  if (shutBy) {
    const minutes = Math.ceil(retryAfterSeconds / 60);
    return { ok: false, status: 429, message: `Too many wrong passwords from ${shutBy}. Try again in ${minutes} min.`, headers: { "Retry-After": String(retryAfterSeconds) } };
  }
  if (passwordMatches(authorization, env.APP_PASSWORD)) return { ok: true };
  const attempt = await hitRateLimit({ key, limit: GATE_ATTEMPTS, windowSeconds: GATE_WINDOW_SECONDS, now });
  // Counted for everyone only while the address's own bound lets it through, so one address's flood does not use up everyone's.
  const all = attempt.allowed ? await hitRateLimit({ key: ALL_ADDRESSES_KEY, limit: GATE_ATTEMPTS_ALL, windowSeconds: GATE_WINDOW_SECONDS, now }) : null;
  // Logged up to the bound, then every 100th: a flood is seen without flooding the log.
  if (attempt.count <= GATE_ATTEMPTS || attempt.count % 100 === 0) {
    console.warn(`[framehook] wrong APP_PASSWORD from ${address} (${attempt.count} of ${GATE_ATTEMPTS} within ${GATE_WINDOW_SECONDS / 60} min${all ? `; ${all.count} of ${GATE_ATTEMPTS_ALL} from every address` : ""})`);
  }
  return challenge();
}
