// The token in a ready email's unsubscribe link: it names the account without
// a session, and only the server can make one. The account's id (base64url)
// and an HMAC-SHA256 of it under WEBHOOK_SECRET (256 bits), compared in
// constant time; rotating the secret voids every link already sent.
import { createHmac } from "node:crypto";
import { safeEqual } from "@/lib/viewer/safe-equal";

const MAC = /^[A-Za-z0-9_-]{43}$/;
const ID = /^[A-Za-z0-9_-]{1,200}$/;

const macOf = (userId: string, secret: string) => createHmac("sha256", secret).update(`unsubscribe:ready-emails:${userId}`).digest("base64url");

export function unsubscribeTokenFor(userId: string, secret: string): string {
  return `${Buffer.from(userId, "utf8").toString("base64url")}.${macOf(userId, secret)}`;
}

/** The account a token names, or null for anything the server did not make. */
export function userIdOfUnsubscribeToken(token: string, secret: string): string | null {
  const [encodedId, mac, extra] = token.split(".");
  if (extra !== undefined || !encodedId || !mac || !ID.test(encodedId) || !MAC.test(mac)) return null;
  const userId = Buffer.from(encodedId, "base64url").toString("utf8");
  return safeEqual(mac, macOf(userId, secret)) ? userId : null;
}
