import http from "node:http";
import { Socket } from "node:net";
import { describe, expect, test } from "vitest";
import { clientAddress, stampPeerAddress } from "@/lib/peer-address";

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
