"use client";
// The gallery: search and filters, the cards newest first (live while anything
// is in progress) with honest progress, the viewer, "load more" behind a
// cursor, and what to do when it is empty.
import { useCallback, useEffect, useMemo, useState } from "react";
import type { CompletionTimes } from "@/lib/generations/completion-history";
import { completionTimeKey } from "@/lib/generations/completion-time";
import type { Generation } from "@/lib/generations/generation";
import type { ModelSpec } from "@/lib/models/catalog";
import { EmptyGallery } from "./empty-gallery";
import { GalleryFilters } from "./gallery-filters";
import { BatchCard, groupBatches } from "./batch-card";
import { GenerationCard } from "./generation-card";
import { GenerationViewer } from "./generation-viewer";
import { LiveIndicator } from "./live-indicator";
import { forgetSubmissions, isPlaceholder, useSubmissions } from "./submissions";
import { generationsUrl, type GenerationFilters, type GenerationPage } from "./client-data";
import { isInProgress, matchesFilters, useGenerations } from "./use-generations";
import { useCompletionTimes } from "./use-completion-times";
import { useStateChanges } from "./use-state-changes";
import { useInfiniteScroll } from "./use-infinite-scroll";

/** Tiles whose stills load at once, with the page, rather than lazily after layout: the first screen of a wide one. */
const FIRST_SCREEN_TILES = 6;

export function Gallery({
  initialPage,
  initialFilters,
  models,
  initialCompletionTimes,
}: {
  initialPage: GenerationPage;
  initialFilters: GenerationFilters;
  models: readonly ModelSpec[];
  initialCompletionTimes: CompletionTimes;
}) {
  const [filters, setFilters] = useState(initialFilters);
  const { data, size, setSize, isValidating, error, mutate, live, stale } = useGenerations(filters, { filters: initialFilters, page: initialPage });
  const submissions = useSubmissions();

  const completionTimes = useCompletionTimes(initialCompletionTimes);
  // Deleted here, before the server has confirmed: the card leaves at once.
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());
  const [message, setMessage] = useState("");
  const [viewing, setViewing] = useState<string | null>(null);

  const listed = useMemo(() => data?.flatMap((page) => page.items).filter((g) => !deleted.has(g.id)) ?? [], [data, deleted]);
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
  const videos = useMemo(() => generations.filter((g) => g.state === "SUCCESS" && g.resultUrls.length > 0), [generations]);
  const viewingIndex = videos.findIndex((g) => g.id === viewing);

  const onDeleted = useCallback(
    (id: string, restore = false) => {
      setDeleted((current) => {
        const next = new Set(current);
        if (restore) next.delete(id);
        else next.add(id);
        return next;
      });
      if (!restore) void mutate();
    },
    [mutate],
  );

  // A generation the server just returned is fetched (and then polled) with the rest.
  const answered = unlisted.filter((s) => !s.placeholder).map((s) => s.generation.id).join();
  useEffect(() => {
    if (answered) void mutate();
  }, [answered, mutate]);
  useEffect(() => forgetSubmissions(listedIds), [listedIds]);

  const changeFilters = useCallback((next: GenerationFilters) => {
    setFilters(next);
    // Shareable and kept on reload; no server round trip, SWR fetches the new list.
    const params = new URL(generationsUrl(next), location.origin).searchParams;
    params.delete("limit");
    window.history.replaceState(null, "", params.size ? `?${params}` : location.pathname);
  }, []);

  const hasMore = !!data?.at(-1)?.nextCursor;
  const loadingMore = isValidating && size > (data?.length ?? 0);
  const filtered = !!(filters.state || filters.model || filters.q);
  const loadMore = useCallback(() => void setSize((n) => n + 1), [setSize]);
  const sentinel = useInfiniteScroll(hasMore && !loadingMore, loadMore);

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <GalleryFilters filters={filters} models={models} onChange={changeFilters} />
        <LiveIndicator status={live} />
      </div>
      <p aria-live="polite" className="sr-only">
        {announcement}
      </p>
      <p role="status" className="sr-only">
        {message}
      </p>
      {error && !data ? (
        <p className="rounded-xl bg-red-50 p-4 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          The gallery could not be loaded. It will retry on its own.
        </p>
      ) : generations.length === 0 ? (
        stale ? (
          <p className="p-8 text-center text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>
        ) : (
          <EmptyGallery filtered={filtered} onClearFilters={() => changeFilters({})} />
        )
      ) : (
        <ul
          aria-label="Generations"
          aria-busy={stale}
          // Tiles grow with the screen: 1 column on a phone, 2 at 768 px, 3 at 1280 px, more on wide screens.
          className={`grid grid-cols-[repeat(auto-fill,minmax(min(100%,16rem),1fr))] items-start gap-4 ${stale ? "opacity-60" : ""}`}
        >
          {groupBatches(generations).map((entry, index) => {
            const card = (generation: Generation) => (
              <GenerationCard
                generation={generation}
                firstScreen={index < FIRST_SCREEN_TILES}
                placeholder={isPlaceholder(generation)}
                typicalMs={completionTimes[completionTimeKey(generation.model, generation.input)] ?? null}
                onOpen={setViewing}
                onAnnounce={setMessage}
                onDeleted={onDeleted}
              />
            );
            if (!("videos" in entry)) return <li key={entry.id}>{card(entry)}</li>;
            return (
              <li key={`batch:${entry.batchId}`} className="sm:col-span-2">
                <BatchCard batchId={entry.batchId} count={entry.videos.length}>
                  {entry.videos.map((generation) => (
                    <li key={generation.id}>{card(generation)}</li>
                  ))}
                </BatchCard>
              </li>
            );
          })}
        </ul>
      )}
      {viewingIndex >= 0 ? (
        <GenerationViewer videos={videos} index={viewingIndex} onNavigate={(i) => setViewing(videos[i]?.id ?? null)} onClose={() => setViewing(null)} />
      ) : null}
      {hasMore ? (
        <div ref={sentinel} className="flex justify-center">
          <button
            type="button"
            onClick={loadMore}
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
