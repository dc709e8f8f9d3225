// The socket's address, which route handlers cannot see: Next copies it into
// X-Forwarded-For only when the client sent none, so under `next start` a
// client could name any address it liked. Before Next reads a request, this
// appends the socket's address to the chain (as a proxy would) and marks the
// request with a per-process secret, so lib/rate-limit/index.ts knows the chain's
// last entry is real. Installed by instrumentation.ts.
import { randomBytes } from "node:crypto";
import http, { type IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";
import { inAddressRanges, type AddressRanges } from "@/lib/http/cidr";
import { isLoopbackHost } from "@/lib/http/loopback";

export const PEER_STAMP_HEADER = "x-framehook-peer-stamp";
const STAMP = Symbol.for("framehook.peerStamp");
type WithStamp = typeof globalThis & { [STAMP]?: string };

/** This process's stamp: unguessable, shared by every bundle through globalThis. */
function processStamp(): string {
  const global = globalThis as WithStamp;
  return (global[STAMP] ??= randomBytes(18).toString("base64url"));
}

/** Appends the socket's address to X-Forwarded-For and stamps the request; a client's own stamp header is replaced. */
export function stampPeerAddress(request: IncomingMessage): void {
  const peer = request.socket.remoteAddress ?? "unknown";
  const sent = request.headers["x-forwarded-for"];
  const chain = Array.isArray(sent) ? sent.join(", ") : sent;
  request.headers["x-forwarded-for"] = chain ? `${chain}, ${peer}` : peer;
  request.headers[PEER_STAMP_HEADER] = processStamp();
}

/**
 * True only when this request's socket came from this computer (loopback),
 * whatever a proxy or the client wrote: what the development mailbox and the
 * public development secrets ask. Unstamped (the socket unseen), false.
 */
export function socketPeerIsLoopback(headers: Headers): boolean {
  if (!hasPeerStamp(headers)) return false;
  const peer = (headers.get("x-forwarded-for") ?? "").split(",").at(-1)?.trim() ?? "";
  return isLoopbackHost(peer);
}

/** True when this request's X-Forwarded-For ends with the address its socket saw. */
export function hasPeerStamp(headers: Headers): boolean {
  const global = globalThis as WithStamp;
  return global[STAMP] !== undefined && headers.get(PEER_STAMP_HEADER) === global[STAMP];
}

/**
 * The client's address. With the socket's address appended and stamped
 * (lib/viewer/peer-address.ts), the chain ends with the peer, and each of the
 * TRUSTED_PROXY_HOPS proxies in front added the address it saw: the client is
 * that many entries from the end. Entries further left are whatever the client
 * wrote, so they never count; a chain shorter than the hops (a request that
 * bypassed the proxies) falls back to the nearest address we know. With
 * `trustedProxies` (TRUSTED_PROXY_CIDRS), a hop counts only when the address
 * that handed the request on is one of the proxies': a client that reached the
 * app directly is its own socket address, whatever it wrote.
 */
export function clientAddress(headers: Headers, trustedHops: number, trustedProxies?: AddressRanges): string {
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Unstamped (a host where instrumentation.ts does not see the socket, e.g.
  // a platform's own proxy in front): the last entry is the nearest proxy's
  // view, so the client is one entry nearer than with a stamp.
  const stamped = hasPeerStamp(headers);
  const hops = stamped ? trustedHops : Math.max(0, trustedHops - 1);
  if (!trustedProxies) return chain.at(-1 - hops) ?? chain.at(-1) ?? "unknown";
  // Walk from the end: an entry is skipped only when it is a proxy's address.
  // Unstamped, the socket (the nearest proxy) cannot be checked here; the
  // entries left of it are.
  let index = chain.length - 1;
  for (let hop = 0; hop < hops && index > 0; hop++) {
    if (!inAddressRanges(trustedProxies, chain[index]!)) break;
    index--;
  }
  return chain[index] ?? "unknown";
}

/**
 * The address as one client is counted: an IPv4 address whole, an IPv6
 * address by its /48 (one site's routed prefix: a subscriber often gets a
 * /56 or a /48 and can use any of its 65,536 /64s, so counting per /64 let
 * one routed /48 farm every per-address limit), an IPv4-mapped IPv6 address
 * as the IPv4 it maps.
 * A port or brackets a proxy wrote are dropped; anything else unparseable is
 * kept as written, so it is still one key.
 */
export function addressGroup(address: string): string {
  let host = address.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) host = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(host)) host = host.slice(0, host.lastIndexOf(":"));
  host = host.replace(/%.*$/, ""); // an IPv6 zone (fe80::1%eth0)
  if (isIPv4(host) || !isIPv6(host)) return host;
  const hextets = expandIPv6(host);
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return [hextets[6]! >> 8, hextets[6]! & 255, hextets[7]! >> 8, hextets[7]! & 255].join(".");
  }
  return `${hextets.slice(0, 3).map((h) => h.toString(16)).join(":")}::/48`;
}

/** The eight 16-bit groups of a valid IPv6 address ("::" filled in, a trailing dotted IPv4 as two groups). */
function expandIPv6(address: string): number[] {
  const parts = (text: string) =>
    text
      ? text.split(":").flatMap((part) => {
          if (!part.includes(".")) return [parseInt(part, 16)];
          const [a, b, c, d] = part.split(".").map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        })
      : [];
  const [head, tail] = address.split("::") as [string, string | undefined];
  const start = parts(head);
  const end = tail === undefined ? [] : parts(tail);
  return [...start, ...Array<number>(8 - start.length - end.length).fill(0), ...end];
}

/**
 * Stamps every request of every HTTP server in this process before its
 * listeners run. Next offers no hook into its server, so the shared
 * prototype's emit is wrapped, once.
 */
export function installPeerStamp(): void {
  const proto = http.Server.prototype as http.Server & { [STAMP]?: true };
  if (proto[STAMP]) return;
  proto[STAMP] = true;
  processStamp();
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") stampPeerAddress(args[0] as IncomingMessage);
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}
