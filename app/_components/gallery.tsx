"use client";
// The gallery: newest first, updated in place while anything is pending.
import { useEffect, useRef } from "react";
import { useSWRConfig } from "swr";
import { GenerationCard } from "./generation-card";
import { CREDITS_KEY } from "./use-credits";
import { isInProgress, useGenerations, type GenerationPage } from "./use-generations";

export function Gallery({ initialPage }: { initialPage: GenerationPage }) {
  const { data } = useGenerations(initialPage);
  const items = data?.items ?? [];
  useRefreshCreditsOnCompletion(items.filter(isInProgress).length);

  if (items.length === 0) {
    return (
      <div className="rounded-2xl border border-dashed border-zinc-300 p-8 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-300">
        <p className="font-medium">No videos yet.</p>
        <p className="mt-1">Try “A paper boat drifting down a rain-soaked street at dusk”.</p>
      </div>
    );
  }
  return (
    <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Generations">
      {items.map((generation) => (
        <li key={generation.id} className="flex">
          <div className="w-full">
            <GenerationCard generation={generation} />
          </div>
        </li>
      ))}
    </ul>
  );
}

/** When the number of tasks in progress falls, a task finished: the balance may have changed. */
function useRefreshCreditsOnCompletion(inProgress: number) {
  const { mutate } = useSWRConfig();
  const previous = useRef(inProgress);
  useEffect(() => {
    if (inProgress < previous.current) void mutate(CREDITS_KEY);
    previous.current = inProgress;
  }, [inProgress, mutate]);
}
