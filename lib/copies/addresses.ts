// Which network addresses a result download may connect to: public unicast
// only. A result URL comes from the gateway, and must not become a way into
// the app's own network (loopback, private ranges, cloud metadata, link-local).
import net from "node:net";

// Two lists: Node's BlockList matches IPv4 addresses against IPv4-mapped IPv6
// rules, so one list with ::ffff:0:0/96 would refuse every IPv4 address.
const blocked4 = new net.BlockList();
const blocked6 = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked4.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  // IPv4-mapped and NAT64 forms could smuggle any IPv4 address past the list above.
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  blocked6.addSubnet(prefix, bits, "ipv6");
}

/** True for a public unicast IP address; false for anything else, including text that is not an address. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return family === 4 ? !blocked4.check(address, "ipv4") : !blocked6.check(address, "ipv6");
}
