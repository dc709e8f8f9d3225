// Who may open /admin. By default whoever knows ADMIN_PASSWORD, remembered
// for a few hours by a signed HttpOnly cookie scoped to /admin. A fork with
// roles replaces isAdmin() with its own check, e.g. with Auth.js:
//   return (await auth())?.user?.role === "admin";
import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";

export const ADMIN_COOKIE = "framehook_admin";
const SESSION_SECONDS = 8 * 60 * 60;

/** False when /admin is off (no ADMIN_PASSWORD): the page is then a 404. */
export const adminEnabled = () => env.ADMIN_PASSWORD !== undefined;

export async function isAdmin(): Promise<boolean> {
  if (!env.ADMIN_PASSWORD) return false;
  const { cookies } = await import("next/headers");
  return verifyAdminSession((await cookies()).get(ADMIN_COOKIE)?.value, env.ADMIN_PASSWORD);
}

export function passwordIsRight(given: string): boolean {
  if (!env.ADMIN_PASSWORD) return false;
  // Compared as fixed-length digests, so neither the length nor the content leaks through timing.
  const digest = (s: string) => createHmac("sha256", "framehook admin password").update(s).digest();
  return timingSafeEqual(digest(given), digest(env.ADMIN_PASSWORD));
}

/** "<expires>.<mac>": the MAC is keyed by the password itself, so changing ADMIN_PASSWORD signs everyone out. */
export function signAdminSession(password: string, now = Date.now()): string {
  const expires = String(Math.floor(now / 1000) + SESSION_SECONDS);
  return `${expires}.${mac(expires, password)}`;
}

export function verifyAdminSession(value: string | undefined, password: string, now = Date.now()): boolean {
  const [expires, signature, ...rest] = (value ?? "").split(".");
  if (rest.length || !expires || !signature || !/^\d{1,12}$/.test(expires) || Number(expires) < now / 1000) return false;
  const expected = Buffer.from(mac(expires, password));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const adminCookieOptions = () =>
  ({
    httpOnly: true,
    sameSite: "strict",
    secure: env.NODE_ENV === "production" && env.PUBLIC_BASE_URL.startsWith("https:"),
    path: "/admin",
    maxAge: SESSION_SECONDS,
  }) as const;

function mac(payload: string, password: string): string {
  const key = createHmac("sha256", password).update("framehook admin session v1").digest();
  return createHmac("sha256", key).update(payload).digest("base64url");
}
