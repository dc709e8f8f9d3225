import http from "node:http";
import { Socket } from "node:net";
import { describe, expect, test } from "vitest";
import { parseAddressRanges, type AddressRanges } from "@/lib/http/cidr";
import { addressGroup, clientAddress, stampPeerAddress } from "@/lib/viewer/peer-address";

/** The headers a route handler sees for a request from `peer` carrying `forwarded`, once stamped as under `next start`. */
function stamped(peer: string, forwarded?: string): Headers {
  const request = new http.IncomingMessage(new Socket());
  Object.defineProperty(request.socket, "remoteAddress", { value: peer });
  if (forwarded !== undefined) request.headers["x-forwarded-for"] = forwarded;
  stampPeerAddress(request);
  return new Headers(request.headers as Record<string, string>);
}

describe("clientAddress", () => {
  test.each([
    ["no proxy, no header: the socket", 0, "198.51.100.7", undefined, "198.51.100.7"],
    ["no proxy, a spoofed header: still the socket", 0, "198.51.100.7", "10.9.8.1", "198.51.100.7"],
    ["no proxy, a spoofed chain: still the socket", 0, "198.51.100.7", "1.1.1.1, 10.9.8.1", "198.51.100.7"],
    ["one proxy (nginx, Caddy): the address it appended", 1, "10.0.0.2", "203.0.113.5", "203.0.113.5"],
    ["one proxy, the client's own entries to the left ignored", 1, "10.0.0.2", "6.6.6.6, 203.0.113.5", "203.0.113.5"],
    ["two proxies (CDN + nginx)", 2, "10.0.0.2", "6.6.6.6, 203.0.113.5, 172.16.0.9", "203.0.113.5"],
    ["a request that bypassed the proxy: the socket", 1, "198.51.100.7", undefined, "198.51.100.7"],
  ])("%s", (_name, hops, peer, forwarded, expected) => {
    expect(clientAddress(stamped(peer, forwarded), hops)).toBe(expected);
  });

  test.each([
    ["a forged stamp header is not a stamp", { "x-forwarded-for": "10.9.8.1, 10.9.8.2", "x-framehook-peer-stamp": "guess" }, 0, "10.9.8.2"],
    ["Vercel (it overwrites X-Forwarded-For with the client): hops 1", { "x-forwarded-for": "203.0.113.5" }, 1, "203.0.113.5"],
    ["no header at all", {}, 0, "unknown"],
  ])("unstamped: %s", (_name, headers, hops, expected) => {
    expect(clientAddress(new Headers(headers), hops)).toBe(expected);
  });
});

describe("clientAddress with TRUSTED_PROXY_CIDRS: a hop counts only from a proxy's address", () => {
  const ranges = (text: string): AddressRanges => {
    const parsed = parseAddressRanges(text);
    if (!parsed.ok) throw new Error(parsed.entry);
    return parsed.ranges;
  };
  const proxies = ranges("10.0.0.0/8, fd00::/8, 172.16.0.9");
  test.each([
    ["through the proxy: the address it appended", 1, "10.0.0.2", "203.0.113.5", "203.0.113.5"],
    ["straight to the origin, a forged header: the socket", 1, "198.51.100.7", "203.0.113.5", "198.51.100.7"],
    ["straight to the origin, a forged chain naming a proxy: the socket", 2, "198.51.100.7", "6.6.6.6, 10.0.0.3", "198.51.100.7"],
    ["two proxies, both listed", 2, "10.0.0.2", "6.6.6.6, 203.0.113.5, 172.16.0.9", "203.0.113.5"],
    ["two hops, the outer one not a listed proxy: it is the client", 2, "10.0.0.2", "6.6.6.6, 203.0.113.5", "203.0.113.5"],
    ["an IPv6 proxy", 1, "fd00::2", "2001:db8::5", "2001:db8::5"],
    ["an IPv4-mapped peer inside the range", 1, "::ffff:10.0.0.2", "203.0.113.5", "203.0.113.5"],
  ])("%s", (_name, hops, peer, forwarded, expected) => {
    expect(clientAddress(stamped(peer, forwarded), hops, proxies)).toBe(expected);
  });

  test.each([["10.0.0.0/33"], ["not-an-address"], ["10.0.0.0/x"], ["2001:db8::/129"]])("%s is refused", (text) => {
    expect(parseAddressRanges(text).ok).toBe(false);
  });
});

describe("addressGroup: one client, as limits count it", () => {
  test.each([
    ["IPv4: the whole address", "203.0.113.5", "203.0.113.5"],
    ["IPv4 with a port a proxy appended", "203.0.113.5:51234", "203.0.113.5"],
    ["IPv6: its /48", "2001:db8:1:2:3:4:5:6", "2001:db8:1::/48"],
    ["IPv6 elsewhere in the same /64: the same group", "2001:0DB8:0001:0002:ffff::9", "2001:db8:1::/48"],
    ["IPv6 in another /64 of the same /48: the same group", "2001:db8:1:ffff::1", "2001:db8:1::/48"],
    ["IPv6 in the next /48: another group", "2001:db8:2::1", "2001:db8:2::/48"],
    ["IPv6 with \"::\" inside the prefix", "2001:db8::1", "2001:db8:0::/48"],
    ["IPv6 in brackets with a port", "[2001:db8:1:2::1]:443", "2001:db8:1::/48"],
    ["IPv6 with a zone", "fe80::1%eth0", "fe80:0:0::/48"],
    ["IPv6 loopback", "::1", "0:0:0::/48"],
    ["IPv4-mapped (a dual-stack socket's IPv4 client): the IPv4 address", "::ffff:198.51.100.7", "198.51.100.7"],
    ["IPv4-mapped in hex", "::ffff:c633:6407", "198.51.100.7"],
    ["not an address: kept as written", "unknown", "unknown"],
  ])("%s", (_name, address, expected) => {
    expect(addressGroup(address)).toBe(expected);
  });
});
