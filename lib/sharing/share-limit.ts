// The per-address limit on public share links, in the database's limiter so
// that every instance counts together. proxy.ts applies it in front of all
// four public routes (page, file, still, player), one hit per request.
import "server-only";
import { env } from "@/lib/env";
import { hitRateLimit, visitorKey, type RateLimitResult } from "@/lib/rate-limit";

/** /v/<token>, /v/<token>/video, /v/<token>/still, /v/<token>/embed: which public route a path is, or null. */
export function publicShareRoute(pathname: string): "page" | "video" | "still" | "embed" | null {
  const match = /^\/v\/[^/]+(?:\/(video|still|embed))?\/?$/.exec(pathname);
  if (!match) return null;
  return (match[1] as "video" | "still" | "embed" | undefined) ?? "page";
}

export function hitShareLimit(headers: Headers): Promise<RateLimitResult> {
  return hitRateLimit({ key: `share:${visitorKey(headers)}`, limit: env.SHARE_RATE_LIMIT, windowSeconds: env.SHARE_RATE_WINDOW_SECONDS });
}
