// Whether a URL names this machine (localhost, 127.x, [::1]). Pure, so the
// environment's own parsing (lib/env.ts, lib/payments/settings.ts) can use it.
export function isLoopback(href: string): boolean {
  const host = new URL(href).hostname;
  return host === "localhost" || host === "[::1]" || /^127\./.test(host);
}
