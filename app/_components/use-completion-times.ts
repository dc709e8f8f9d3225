"use client";
// Typical completion times (this app's history), revalidated when a task
// succeeds (revalidateAfterOutcome).
import useSWR from "swr";
import type { CompletionTimes } from "@/lib/generations/completion-history";
import { COMPLETION_TIMES_KEY, fetchJson } from "./client-data";


export function useCompletionTimes(initial: CompletionTimes): CompletionTimes {
  const { data } = useSWR<{ completionTimes: CompletionTimes }>(COMPLETION_TIMES_KEY, fetchJson, {
    fallbackData: { completionTimes: initial },
    revalidateOnFocus: false,
  });
  return data?.completionTimes ?? initial;
}
