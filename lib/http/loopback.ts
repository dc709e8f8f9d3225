// Whether a URL, a host to listen on or a socket's address names this machine
// (localhost, 127.x, [::1]). Pure, so the environment's own parsing
// (lib/env.ts, lib/payments/settings.ts) and the start scripts can use it.
export function isLoopback(href: string): boolean {
  return isLoopbackHost(new URL(href).hostname);
}

/** A host name or address: "localhost", 127.0.0.0/8, ::1 (bracketed or not), or IPv4-mapped 127.x. "0.0.0.0" and "::" are every interface. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
}
