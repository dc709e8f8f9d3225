// Per-key request throttling: a sliding window of accepted calls per API key,
// as gateways enforce it, answered with 429 and the seconds until a slot frees.

export type RateLimit = { limit: number; windowMs: number };
export type ThrottleDecision = { ok: true; limit: number; remaining: number } | { ok: false; retryAfterSeconds: number; limit: number };

export class RateLimiter {
  private hits = new Map<string, number[]>();
  private overrides = new Map<string, RateLimit>();

  /** `defaults` is read on every call, so a config change applies at once. */
  constructor(private defaults: () => RateLimit) {}

  setLimit(key: string, limit: RateLimit): void {
    this.overrides.set(key, limit);
  }

  check(key: string, now = Date.now()): ThrottleDecision | null {
    const { limit, windowMs } = this.overrides.get(key) ?? this.defaults();
    if (limit <= 0) return null;
    const recent = (this.hits.get(key) ?? []).filter((at) => now - at < windowMs);
    if (recent.length >= limit) {
      this.hits.set(key, recent);
      return { ok: false, limit, retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000)) };
    }
    recent.push(now);
    this.hits.set(key, recent);
    return { ok: true, limit, remaining: limit - recent.length };
  }

  reset(): void {
    this.hits.clear();
    this.overrides.clear();
  }
}
