"use client";
// The credit balance. A failing balance is also the page's signal that the
// gateway is unreachable, so errors are retried on a slow, steady beat (not
// SWR's exponential backoff) and the banner clears soon after the gateway returns.
import useSWR from "swr";
import { CREDITS_KEY, fetchJson, FetchError } from "./client-data";

const RETRY_MS = 15_000;

export function useCredits() {
  return useSWR<{ credits: number }, FetchError>(CREDITS_KEY, fetchJson, {
    onErrorRetry: (_error, _key, _config, revalidate) => {
      setTimeout(() => void revalidate(), RETRY_MS);
    },
  });
}

/** True when the app answered but could not reach the gateway (or could not be reached itself). */
export function isGatewayDown(error: FetchError | undefined): boolean {
  return error !== undefined && (error.status === null || error.status >= 500);
}
