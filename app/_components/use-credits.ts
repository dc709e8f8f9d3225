"use client";
// The viewer's own credits, for the header and the form: revalidated after a submission and
// after every outcome (revalidate-after-outcome.ts), and when the tab regains focus.
// `enabled: false` (credits off on this server) asks nothing.
import useSWR from "swr";
import { CREDITS_KEY, fetchJson, type CreditBalance, type FetchError } from "./client-data";

export function useCredits({ enabled = true }: { enabled?: boolean } = {}) {
  return useSWR<CreditBalance, FetchError>(enabled ? CREDITS_KEY : null, fetchJson);
}
