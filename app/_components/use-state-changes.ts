"use client";
// Watches the gallery's generations for state changes, however they were
// learned (an event, a poll): announces them to screen readers and, when a
// task finishes, revalidates what its outcome moved.
import { useEffect, useRef, useState } from "react";
import type { Generation, GenerationState } from "@/lib/generations/generation";
import { STATE_LABELS } from "./state-badge";
import { revalidateAfterOutcome } from "./revalidate-after-outcome";

const spoken = (state: GenerationState) =>
  state === "FAILURE" || state === "SUBMIT_FAILED" ? `${STATE_LABELS[state]}, not charged` : STATE_LABELS[state];

export function useStateChanges(generations: readonly Generation[]): string {
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
    for (const g of changed) revalidateAfterOutcome(g);
  }, [generations]);

  return announcement;
}
