// The optional access gate of a deployed instance (APP_PASSWORD: HTTP Basic
// auth, any user name). proxy.ts applies it to every page and API; the few
// routes kept out of the proxy so that their bodies stream (uploads) apply it
// themselves.
import { brand } from "@/lib/brand";
import { env } from "@/lib/env";
import { safeEqual } from "./safe-equal";

export function passwordMatches(header: string | null, password: string): boolean {
  if (!header?.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  return safeEqual(decoded.slice(decoded.indexOf(":") + 1), password);
}

export const passesAccessGate = (authorization: string | null) => !env.APP_PASSWORD || passwordMatches(authorization, env.APP_PASSWORD);

export const accessGateHeaders = () => ({ "WWW-Authenticate": `Basic realm="${brand.name}", charset="UTF-8"` });
