// The account balance, read from the gateway with a short server-side cache
// so that every open tab polling the header costs one gateway call at most
// every few seconds.
import "server-only";
import { AppError } from "@/lib/errors";
import { GatewayError, getCredits } from "./client";

const TTL_MS = 5_000;
let cached: { credits: number; at: number } | null = null;
let inFlight: Promise<number> | null = null;

export async function getCreditBalance({ fresh = false }: { fresh?: boolean } = {}): Promise<number> {
  if (!fresh && cached && Date.now() - cached.at < TTL_MS) return cached.credits;
  inFlight ??= getCredits()
    .then((credits) => {
      cached = { credits, at: Date.now() };
      return credits;
    })
    .finally(() => {
      inFlight = null;
    });
  try {
    return await inFlight;
  } catch (error) {
    if (error instanceof GatewayError) {
      if (error.kind === "unauthorized") console.error("[framehook] the gateway rejected GATEWAY_API_KEY reading credits");
      throw new AppError("gateway_unavailable", "The credit balance is unavailable right now.");
    }
    throw error;
  }
}

/** After a task completes the balance has changed: the next read goes to the gateway. */
export function invalidateCreditBalance(): void {
  cached = null;
}
