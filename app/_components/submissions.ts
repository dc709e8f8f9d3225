"use client";
// Submissions the gallery's API has not listed yet: a placeholder card while
// the server action runs, then the generation it returned until the next fetch
// includes it. The form writes here; the gallery reads, so neither needs to
// know the other's SWR keys.
import { useSyncExternalStore } from "react";
import type { Generation } from "@/lib/generations/generation";

export type Submission = { key: string; generation: Generation; placeholder: boolean };

let submissions: readonly Submission[] = [];
const listeners = new Set<() => void>();
const EMPTY: readonly Submission[] = [];
const PLACEHOLDER_PREFIX = "submitting-";

export const isPlaceholder = (generation: Generation) => generation.id.startsWith(PLACEHOLDER_PREFIX);

function update(next: readonly Submission[]) {
  submissions = next;
  for (const listener of listeners) listener();
}

/** Shows a card at once, before the server has answered. A repeated key (double submit) is ignored. */
export function addSubmission(key: string, { model, prompt }: { model: string; prompt: string }) {
  if (submissions.some((s) => s.key === key)) return;
  const now = new Date().toISOString();
  const generation: Generation = {
    id: `${PLACEHOLDER_PREFIX}${key}`,
    taskId: null,
    model,
    state: "SUBMITTING",
    prompt,
    input: {},
    resultUrls: [],
    resultUrlsDropped: 0,
    storedMedia: [],
    creditsConsumed: null,
    error: null,
    callbackEnabled: true,
    overdue: false,
    notFoundSince: null,
    lost: false,
    gatewayMetadata: null,
    share: null,
    batchId: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
  update([{ key, generation, placeholder: true }, ...submissions]);
}

/** The server answered: show what it created, or drop the placeholder when it created nothing. */
export function settleSubmission(key: string, generation: Generation | undefined) {
  update(
    generation
      ? submissions.map((s) => (s.key === key ? { key, generation, placeholder: false } : s))
      : submissions.filter((s) => s.key !== key),
  );
}

/** Once the API lists a generation, the gallery's data carries it. */
export function forgetSubmissions(ids: ReadonlySet<string>) {
  if (submissions.some((s) => ids.has(s.generation.id))) update(submissions.filter((s) => !ids.has(s.generation.id)));
}

export function useSubmissions(): readonly Submission[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => submissions,
    () => EMPTY,
  );
}
