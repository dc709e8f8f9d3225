// The per-address limit on public share links, in the database's limiter so
// that every instance counts together. proxy.ts applies it in front of every
// public route, a shared video's and a shared comparison's alike, one hit per request.
import "server-only";
import { env } from "@/lib/env";
import { hitRateLimit, visitorKey, type RateLimitResult } from "@/lib/rate-limit";

/**
 * Which public route a path is, or null: /v/<token> and its /video, /still,
 * /embed; /c/<token> and each of its videos' /<n>/video and /<n>/still.
 */
export function publicShareRoute(pathname: string): "page" | "video" | "still" | "embed" | null {
  const match = /^\/v\/[^/]+(?:\/(video|still|embed))?\/?$/.exec(pathname) ?? /^\/c\/[^/]+(?:\/[^/]+\/(video|still))?\/?$/.exec(pathname);
  if (!match) return null;
  return (match[1] as "video" | "still" | "embed" | undefined) ?? "page";
}

export function hitShareLimit(headers: Headers): Promise<RateLimitResult> {
  return hitRateLimit({ key: `share:${visitorKey(headers)}`, limit: env.SHARE_RATE_LIMIT, windowSeconds: env.SHARE_RATE_WINDOW_SECONDS });
}
