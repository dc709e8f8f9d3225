// The callback token: an HMAC of the generation id under WEBHOOK_SECRET, put
// in the generation's webhook_url. The gateway does not sign callbacks, so
// this token is what proves a callback came from the party we gave the URL to.
import { createHmac } from "node:crypto";
import { safeEqual } from "@/lib/viewer/safe-equal";

export function callbackTokenFor(generationId: string, secret: string): string {
  const mac = createHmac("sha256", secret).update(`callback:${generationId}`).digest("base64url");
  return `${generationId}.${mac}`;
}

/** The generation id the token was made for, or null; the comparison takes constant time. */
export function verifyCallbackToken(token: string | null, secret: string): string | null {
  if (!token || token.length > 200) return null;
  const dot = token.lastIndexOf(".");
  if (dot <= 0) return null;
  const generationId = token.slice(0, dot);
  return safeEqual(token, callbackTokenFor(generationId, secret)) ? generationId : null;
}
