"use client";
// The gallery's data: pages of the app's own API, newest first, behind a cursor.
// Kept live by the event stream (use-generation-events.ts): a change refetches
// the page that shows it. Polled every few seconds while something shown is
// in progress and the stream is not open, every 10 s as a safety net while it
// is (SWR pauses while the tab is hidden and revalidates on focus).
import { useCallback, useEffect, useRef } from "react";
import useSWRInfinite, { type SWRInfiniteResponse } from "swr/infinite";
import type { Generation } from "@/lib/generations/generation";
import { isCopying } from "@/lib/media/media-copy";
import { fetchJson, generationsUrl, POLL_INTERVAL_MS, SAFETY_NET_POLL_MS, type GenerationFilters, type GenerationPage } from "./client-data";
import { useGenerationEvents, type LiveStatus } from "./use-generation-events";

export const isInProgress = (g: Generation) => g.state === "PENDING" || g.state === "SUBMITTING";
/** Still changing: a task in progress, or its result still being copied into storage. */
const isChanging = (g: Generation) => isInProgress(g) || (g.state === "SUCCESS" && isCopying(g));
const anyInProgress = (pages: GenerationPage[] | undefined) => !!pages?.some((page) => page.items.some(isChanging));

export function matchesFilters(generation: Generation, filters: GenerationFilters): boolean {
  return (
    (!filters.state || generation.state === filters.state) &&
    (!filters.model || generation.model === filters.model) &&
    (!filters.q || generation.prompt.toLowerCase().includes(filters.q.trim().toLowerCase()))
  );
}

/** `initial` is the server-rendered first page, shown while `filters` are the ones it was rendered for. */
export function useGenerations(filters: GenerationFilters, initial: { filters: GenerationFilters; page: GenerationPage }) {
  const sameAsInitial = filters.state === initial.filters.state && filters.model === initial.filters.model && filters.q === initial.filters.q;
  // While events flow, a read need not wait for the server to ask the gateway: the answer comes as an event.
  const liveRef = useRef(false);
  const fetchPage = useCallback((url: string) => fetchJson<GenerationPage>(liveRef.current ? `${url}&refresh=background` : url), []);
  const swr = useSWRInfinite<GenerationPage>(
    (_index, previous: GenerationPage | null) => (previous && !previous.nextCursor ? null : generationsUrl(filters, previous?.nextCursor)),
    fetchPage,
    { fallbackData: sameAsInitial ? [initial.page] : undefined, keepPreviousData: true },
  );
  const { data, mutate } = swr;
  const refresh = useCoalescedRefresh(mutate);
  const live = useGenerationEvents({
    onChange: (change) => refresh(change.id),
    // The first open follows the server render: only news if something was in progress.
    onResync: ({ initial }) => {
      if (!initial || anyInProgress(data)) void mutate();
    },
  });
  useEffect(() => {
    liveRef.current = live === "live";
  }, [live]);
  usePollWhileInProgress(swr, live);
  // Shown dimmed only while what is on screen belongs to other filters (kept
  // from before a change): the server's first page is current, even while SWR
  // revalidates it after hydration (SWR counts fallback data as not loaded).
  const stale = swr.isLoading && !sameAsInitial;
  return { ...swr, live, stale };
}

/**
 * Refetches, on events, the first page (where new cards appear) and any page
 * showing a changed generation. One refetch at a time: SWR drops the answer of
 * a request that a newer mutate overtook, so a steady stream of events would
 * otherwise keep any answer from ever being shown. Events that arrive
 * meanwhile are gathered into the next refetch.
 */
function useCoalescedRefresh(mutate: SWRInfiniteResponse<GenerationPage>["mutate"]) {
  const state = useRef<{ running: boolean; ids: Set<string> }>({ running: false, ids: new Set() });
  return useCallback(
    (id: string) => {
      const current = state.current;
      current.ids.add(id);
      if (current.running) return;
      const run = () => {
        const ids = current.ids;
        current.ids = new Set();
        current.running = true;
        void mutate(undefined, {
          revalidate: (page: GenerationPage | undefined, url) => !page || !String(url).includes("cursor=") || page.items.some((g) => ids.has(g.id)),
        }).finally(() => {
          current.running = false;
          if (current.ids.size > 0) run();
        });
      };
      run();
    },
    [mutate],
  );
}

/**
 * SWR's refreshInterval would refetch only the first page (or, with
 * revalidateAll, every page loaded). Here a poll refetches the first page
 * and the older pages that still show work in progress, so it costs one
 * request however far the user has scrolled.
 */
function usePollWhileInProgress({ data, mutate }: Pick<SWRInfiniteResponse<GenerationPage>, "data" | "mutate">, live: LiveStatus) {
  const polling = anyInProgress(data);
  // A task submitted without a callback is carried by polling alone: no event will come.
  const uncalled = !!data?.some((page) => page.items.some((g) => g.state === "PENDING" && !g.callbackEnabled));
  const interval = live === "live" && !uncalled ? SAFETY_NET_POLL_MS : POLL_INTERVAL_MS;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible") return;
      void mutate(undefined, {
        // `page` is undefined when a new item on top shifted this page's cursor.
        revalidate: (page: GenerationPage | undefined, url) => !page || !String(url).includes("cursor=") || page.items.some(isChanging),
      });
    }, interval);
    return () => clearInterval(timer);
  }, [polling, interval, mutate]);
}
