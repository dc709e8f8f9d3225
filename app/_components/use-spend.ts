"use client";
// The viewer's spend against their cap (null when there is no cap). Revalidated
// after each submission and whenever a task finishes (revalidateAfterOutcome).
import useSWR from "swr";
import { fetchJson, FetchError, SPEND_KEY } from "./client-data";


export type SpendAnswer = { spend: { used: number; limit: number; window: "hour" | "day" | "week"; resetsAt: string } | null };

export function useSpend() {
  return useSWR<SpendAnswer, FetchError>(SPEND_KEY, fetchJson);
}
