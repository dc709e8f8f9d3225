"use client";
// Whether the video gateway answers, behind the site-wide banner. Errors are
// retried on a slow, steady beat (not SWR's exponential backoff), so the
// banner clears soon after the gateway returns.
import useSWR from "swr";
import { fetchJson, FetchError, GATEWAY_STATUS_KEY } from "./client-data";

const RETRY_MS = 15_000;

export function useGatewayStatus() {
  return useSWR<{ reachable: true }, FetchError>(GATEWAY_STATUS_KEY, fetchJson, {
    onErrorRetry: (_error, _key, _config, revalidate) => {
      setTimeout(() => void revalidate(), RETRY_MS);
    },
  });
}

/** True when the app answered but could not reach the gateway (or could not be reached itself). */
export function isGatewayDown(error: FetchError | undefined): boolean {
  return error !== undefined && (error.status === null || error.status >= 500);
}
