// Where the gateway should call us back, or null when it could not reach us:
// a remote gateway cannot call localhost or a private address, and a callback
// URL it cannot reach is worse than none, so polling carries the task instead.
import { env, isLoopback } from "@/lib/env";
import { callbackTokenFor } from "./callback-token";

export const WEBHOOK_PATH = "/api/webhooks/gateway";

let warned = false;

export function callbacksReachable(): boolean {
  if (env.gatewayIsLocal) return true;
  return !isPrivateHost(new URL(env.PUBLIC_BASE_URL).hostname);
}

export function callbackUrlFor(generationId: string): string | undefined {
  if (!callbacksReachable()) {
    if (!warned) {
      warned = true;
      console.warn(
        `[framehook] callbacks disabled: the gateway at ${new URL(env.GATEWAY_BASE_URL).host} cannot reach PUBLIC_BASE_URL=${env.PUBLIC_BASE_URL}; tasks are followed by polling. Set PUBLIC_BASE_URL to a public address (or a tunnel) to enable callbacks.`,
      );
    }
    return undefined;
  }
  // Keeps a path in the base URL (an app served under /studio, say).
  const url = new URL(`${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${WEBHOOK_PATH}`);
  url.searchParams.set("token", callbackTokenFor(generationId, env.WEBHOOK_SECRET));
  return url.toString();
}

export function isPrivateHost(host: string): boolean {
  if (isLoopback(`http://${host}`) || host.endsWith(".local") || host.endsWith(".internal")) return true;
  const octets = host.split(".").map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o))) return host === "[::1]" || !host.includes(".");
  const [a, b] = octets as [number, number, number, number];
  return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || a === 0;
}
