// A cookie that remembers, for a while, that its browser gave a password the
// server knows (ADMIN_PASSWORD, APP_PASSWORD): "<expires>.<mac>". The MAC is
// keyed by the server's secret, the cookie's purpose and the password, so
// changing the password signs everyone out, one purpose's cookie is no other's,
// and a captured cookie is no offline test of password guesses (the secret
// never leaves the server).
import "server-only";
import { createHmac } from "node:crypto";
import { env } from "@/lib/env";
import { safeEqual } from "./safe-equal";

export function signPasswordSession({ purpose, password, seconds, now = Date.now() }: { purpose: string; password: string; seconds: number; now?: number }): string {
  const expires = String(Math.floor(now / 1000) + seconds);
  return `${expires}.${mac(purpose, expires, password)}`;
}

export function verifyPasswordSession({ purpose, value, password, now = Date.now() }: { purpose: string; value: string | undefined; password: string; now?: number }): boolean {
  const [expires, signature, ...rest] = (value ?? "").split(".");
  if (rest.length || !expires || !signature || !/^\d{1,12}$/.test(expires) || Number(expires) < now / 1000) return false;
  return safeEqual(signature, mac(purpose, expires, password));
}

function mac(purpose: string, payload: string, password: string): string {
  const key = createHmac("sha256", env.AUTH_SECRET ?? env.WEBHOOK_SECRET).update(`${purpose}\0`).update(password).digest();
  return createHmac("sha256", key).update(payload).digest("base64url");
}
