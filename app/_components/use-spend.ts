"use client";
// The viewer's spend against their cap (null when there is no cap). Revalidated
// after each submission and whenever a task finishes (revalidateAfterOutcome).
import useSWR from "swr";
import { fetchJson, FetchError, SPEND_KEY } from "./client-data";


/** `shown`: in the viewer's own unit, whole credits (or, with the kit's credits off, the percent of the cap): what the header shows. */
export type SpendAnswer = {
  spend: { used: number; limit: number; window: "hour" | "day" | "week"; resetsAt: string; shown: { unit: "credits" | "percent"; used: number; limit: number } } | null;
};

export function useSpend() {
  return useSWR<SpendAnswer, FetchError>(SPEND_KEY, fetchJson);
}
