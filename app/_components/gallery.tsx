"use client";
// The gallery: filters, the cards newest first (live while anything is in
// progress), "load more" behind a cursor, and what to do when it is empty.
import { useEffect, useMemo, useState } from "react";
import type { ModelSpec } from "@/lib/models/catalog";
import { EmptyGallery } from "./empty-gallery";
import { GalleryFilters } from "./gallery-filters";
import { GenerationCard } from "./generation-card";
import { LiveIndicator } from "./live-indicator";
import { forgetSubmissions, isPlaceholder, useSubmissions } from "./submissions";
import { generationsUrl, isInProgress, matchesFilters, useGenerations, type GenerationFilters, type GenerationPage } from "./use-generations";
import { useStateChanges } from "./use-state-changes";

export function Gallery({
  initialPage,
  initialFilters,
  models,
}: {
  initialPage: GenerationPage;
  initialFilters: GenerationFilters;
  models: readonly ModelSpec[];
}) {
  const [filters, setFilters] = useState(initialFilters);
  const { data, size, setSize, isLoading, isValidating, error, mutate, live } = useGenerations(filters, { filters: initialFilters, page: initialPage });
  const submissions = useSubmissions();

  const listed = useMemo(() => data?.flatMap((page) => page.items) ?? [], [data]);
  const listedIds = useMemo(() => new Set(listed.map((g) => g.id)), [listed]);
  // A placeholder steps aside as soon as the server lists the row it stands for.
  const unlisted = useMemo(
    () =>
      submissions.filter(
        ({ generation, placeholder }) =>
          !listedIds.has(generation.id) &&
          matchesFilters(generation, filters) &&
          // With live events the list can show the row as PENDING before the action answers.
          !(placeholder && listed.some((g) => isInProgress(g) && g.prompt === generation.prompt && g.model === generation.model)),
      ),
    [submissions, listedIds, listed, filters],
  );
  const generations = useMemo(() => [...unlisted.map((s) => s.generation), ...listed], [unlisted, listed]);
  const announcement = useStateChanges(generations);

  // A generation the server just returned is fetched (and then polled) with the rest.
  const answered = unlisted.filter((s) => !s.placeholder).map((s) => s.generation.id).join();
  useEffect(() => {
    if (answered) void mutate();
  }, [answered, mutate]);
  useEffect(() => forgetSubmissions(listedIds), [listedIds]);

  const changeFilters = (next: GenerationFilters) => {
    setFilters(next);
    // Shareable and kept on reload; no server round trip, SWR fetches the new list.
    const params = new URL(generationsUrl(next), location.origin).searchParams;
    params.delete("limit");
    window.history.replaceState(null, "", params.size ? `?${params}` : location.pathname);
  };

  const hasMore = !!data?.at(-1)?.nextCursor;
  const loadingMore = isValidating && size > (data?.length ?? 0);
  const filtered = !!(filters.state || filters.model);

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <GalleryFilters filters={filters} models={models} onChange={changeFilters} />
        <LiveIndicator status={live} />
      </div>
      <p aria-live="polite" className="sr-only">
        {announcement}
      </p>
      {error && !data ? (
        <p className="rounded-xl bg-red-50 p-4 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          The gallery could not be loaded. It will retry on its own.
        </p>
      ) : generations.length === 0 ? (
        isLoading ? (
          <p className="p-8 text-center text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>
        ) : (
          <EmptyGallery filtered={filtered} onClearFilters={() => changeFilters({})} />
        )
      ) : (
        <ul
          aria-label="Generations"
          aria-busy={isLoading}
          className={`grid gap-4 sm:grid-cols-2 xl:grid-cols-3 ${isLoading ? "opacity-60" : ""}`}
        >
          {generations.map((generation) => (
            <li key={generation.id}>
              <GenerationCard generation={generation} placeholder={isPlaceholder(generation)} />
            </li>
          ))}
        </ul>
      )}
      {hasMore ? (
        <div className="flex justify-center">
          <button
            type="button"
            onClick={() => void setSize(size + 1)}
            disabled={loadingMore}
            className="rounded-lg px-4 py-2 text-sm font-medium ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60 dark:ring-zinc-700 dark:hover:bg-zinc-800"
          >
            {loadingMore ? "Loading…" : "Load older videos"}
          </button>
        </div>
      ) : null}
    </div>
  );
}
