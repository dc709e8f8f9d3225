"use client";
// The viewer's own credits, for the header: revalidated after a submission and
// after every outcome (revalidate-after-outcome.ts), and when the tab regains focus.
import useSWR from "swr";
import { CREDITS_KEY, fetchJson, type CreditBalance, type FetchError } from "./client-data";

export function useCredits() {
  return useSWR<CreditBalance, FetchError>(CREDITS_KEY, fetchJson);
}
