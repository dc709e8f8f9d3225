"use client";
// Watches the gallery's generations for state changes: announces them to
// screen readers and, when a task finishes, refreshes the balance (a success
// was charged, a failure refunded).
import { useEffect, useRef, useState } from "react";
import { useSWRConfig } from "swr";
import type { Generation, GenerationState } from "@/lib/generations/generation";
import { STATE_LABELS } from "./state-badge";
import { CREDITS_KEY, COMPLETION_TIMES_KEY, SPEND_KEY } from "./client-data";

const spoken = (state: GenerationState) =>
  state === "FAILURE" || state === "SUBMIT_FAILED" ? `${STATE_LABELS[state]}, not charged` : STATE_LABELS[state];

export function useStateChanges(generations: readonly Generation[]): string {
  const { mutate } = useSWRConfig();
  const seen = useRef<Map<string, GenerationState> | null>(null);
  const [announcement, setAnnouncement] = useState("");

  useEffect(() => {
    const previous = seen.current;
    seen.current = new Map(generations.map((g) => [g.id, g.state]));
    // The first render and cards scrolled into view by "load more" are not news.
    if (!previous) return;
    const changed = generations.filter((g) => previous.has(g.id) && previous.get(g.id) !== g.state);
    if (changed.length === 0) return;
    setAnnouncement(changed.map((g) => `${spoken(g.state)}: ${g.prompt.slice(0, 80)}`).join(". "));
    if (changed.some((g) => g.state === "SUCCESS" || g.state === "FAILURE")) void mutate(CREDITS_KEY);
    void mutate(SPEND_KEY); // a finished task changes the visitor's spend
    // A success is one more sample for the typical completion times.
    if (changed.some((g) => g.state === "SUCCESS")) void mutate(COMPLETION_TIMES_KEY);
  }, [generations, mutate]);

  return announcement;
}
