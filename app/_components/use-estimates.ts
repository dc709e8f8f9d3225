"use client";
// Typical completion times (this app's history), revalidated when a task finishes.
import useSWR from "swr";
import type { CompletionEstimates } from "@/lib/generations/completion-history";
import { ESTIMATES_KEY, fetchJson } from "./client-data";


export function useEstimates(initial: CompletionEstimates): CompletionEstimates {
  const { data } = useSWR<{ estimates: CompletionEstimates }>(ESTIMATES_KEY, fetchJson, {
    fallbackData: { estimates: initial },
    revalidateOnFocus: false,
  });
  return data?.estimates ?? initial;
}
