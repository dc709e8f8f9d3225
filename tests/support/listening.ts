// Which local addresses a TCP port is listened on, read from the kernel's
// socket tables (Linux /proc/net/tcp and tcp6): no connection is made.
import fs from "node:fs";

/** "127.0.0.1", "0.0.0.0", "::1", "::"… for every listening socket on `port`; null where /proc/net is not there. */
export function listeningAddresses(port: number): string[] | null {
  if (!fs.existsSync("/proc/net/tcp")) return null;
  const found: string[] = [];
  for (const [file, family] of [["/proc/net/tcp", 4], ["/proc/net/tcp6", 6]] as const) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== "0A") continue; // 0A: LISTEN
      const [hex, portHex] = local.split(":") as [string, string];
      if (parseInt(portHex, 16) !== port) continue;
      found.push(family === 4 ? ipv4(hex) : ipv6(hex));
    }
  }
  return found;
}

/** The kernel writes each 32-bit word in host (little-endian) order. */
const words = (hex: string) => hex.match(/.{8}/g)!.map((word) => word.match(/../g)!.reverse().join(""));
const ipv4 = (hex: string) => words(hex)[0]!.match(/../g)!.map((byte) => parseInt(byte, 16)).join(".");
function ipv6(hex: string): string {
  const groups = words(hex).flatMap((word) => [word.slice(0, 4), word.slice(4)]).map((group) => parseInt(group, 16).toString(16));
  if (groups.slice(0, 5).every((g) => g === "0") && groups[5] === "ffff") return `::ffff:${ipv4(words(hex)[3]!.match(/../g)!.reverse().join(""))}`;
  const text = groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
  return text.replace(/^:(?!:)/, "").replace(/:::/, "::");
}
