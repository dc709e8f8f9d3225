// The link the gateway fetches an uploaded input from: on the app's public
// origin, signed (an HMAC of the upload id and an expiry under a key derived
// from WEBHOOK_SECRET) so it needs no cookie, and expiring.
import "server-only";
import { createHmac } from "node:crypto";
import { env } from "@/lib/env";
import { safeEqual } from "@/lib/viewer/safe-equal";

export const INPUT_PATH = "/api/inputs";

const signature = (id: string, expires: number) =>
  createHmac("sha256", createHmac("sha256", env.WEBHOOK_SECRET).update("framehook input links").digest()).update(`${id}.${expires}`).digest("base64url");

export function inputLinkFor(uploadId: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + env.UPLOAD_LINK_SECONDS;
  // Keeps a path in the base URL (an app served under /studio, say).
  const url = new URL(`${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${INPUT_PATH}/${uploadId}`);
  url.searchParams.set("expires", String(expires));
  url.searchParams.set("sig", signature(uploadId, expires));
  return url.toString();
}

/** "ok", "expired" or "forged" for a link's parameters; the comparison takes constant time. */
export function verifyInputLink({ id, expires, sig }: { id: string; expires: string | null; sig: string | null }, now = Date.now()): "ok" | "expired" | "forged" {
  if (!expires || !sig || !/^\d{1,12}$/.test(expires) || sig.length > 100) return "forged";
  if (!safeEqual(sig, signature(id, Number(expires)))) return "forged";
  return Number(expires) * 1000 < now ? "expired" : "ok";
}
