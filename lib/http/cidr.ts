// Address ranges written as CIDR ("10.0.0.0/8", "2001:db8::/32", or one
// address): parsed once from the environment, then asked whether an address
// falls inside. Pure (node:net's BlockList), so lib/env.ts can validate with it.
import { BlockList, isIPv4, isIPv6 } from "node:net";

export type AddressRanges = { readonly list: BlockList; readonly written: readonly string[] };

/** The ranges of a comma-separated list, or the first entry that is not an address or a CIDR range. */
export function parseAddressRanges(text: string): { ok: true; ranges: AddressRanges } | { ok: false; entry: string } {
  const list = new BlockList();
  const written = text.split(",").map((entry) => entry.trim()).filter(Boolean);
  for (const entry of written) {
    const [address = "", prefixText] = entry.split("/");
    const type = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
    const bits = type === "ipv4" ? 32 : 128;
    const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (!type || !(prefix >= 0 && prefix <= bits)) return { ok: false, entry };
    list.addSubnet(address, prefix, type);
  }
  return { ok: true, ranges: { list, written } };
}

/** Whether `address` (as a proxy wrote it: brackets and a port allowed) is inside the ranges. IPv4-mapped IPv6 counts as its IPv4. */
export function inAddressRanges(ranges: AddressRanges, address: string): boolean {
  let host = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) host = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(host)) host = host.slice(0, host.lastIndexOf(":"));
  const mapped = /^::ffff:([\d.]+)$/i.exec(host);
  if (mapped) host = mapped[1]!;
  if (isIPv4(host)) return ranges.list.check(host, "ipv4");
  if (isIPv6(host)) return ranges.list.check(host, "ipv6");
  return false;
}
