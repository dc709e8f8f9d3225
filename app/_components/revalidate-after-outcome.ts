// What a finished task makes stale in the browser, revalidated from one place
// whichever way the tab learned of it (an event, a poll, a page refresh). Not
// in client-data.ts: the server imports that module, and SWR's server build
// has no mutate.
import { mutate } from "swr";
import type { GenerationState } from "@/lib/generations/generation";
import { COMPLETION_TIMES_KEY, CREDITS_KEY, SPEND_KEY } from "./client-data";

/** The outcomes already accounted for in this tab: every path that learns of one calls revalidateAfterOutcome. */
const settled = new Set<string>();

/**
 * A task finished, as an event, a poll or a page refresh tells it: revalidates
 * once what its outcome moves. The viewer's credits (a success captured its
 * hold, a failure or a refused submission gave it back), the viewer's spend
 * (its estimate leaves the in-flight sum), and on success the typical
 * completion times (one more sample).
 */
export function revalidateAfterOutcome({ id, state }: { id: string; state: GenerationState }) {
  if (state !== "SUCCESS" && state !== "FAILURE" && state !== "SUBMIT_FAILED") return;
  const key = `${id}:${state}`;
  if (settled.has(key)) return;
  settled.add(key);
  // The hold was captured or given back.
  void mutate(CREDITS_KEY);
  void mutate(SPEND_KEY);
  if (state === "SUCCESS") void mutate(COMPLETION_TIMES_KEY);
}
