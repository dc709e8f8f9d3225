"use client";
// The gallery's data: pages of the app's own API, newest first, behind a cursor.
// Kept live by the event stream (use-generation-events.ts): a change to a card
// on screen is rendered from the event itself; a card not on screen (a new
// one) or an event without its card refetches the page that shows it. Polled
// every few seconds while something shown is in progress and the stream is
// not open, every 10 s as a safety net while it is (SWR pauses while the tab
// is hidden and revalidates on focus).
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import useSWRInfinite, { type SWRInfiniteResponse } from "swr/infinite";
import type { LiveChange } from "@/lib/events/types";
import type { Generation } from "@/lib/generations/generation";
import { isCopying } from "@/lib/copies/media-copy";
import { fetchJson, generationsUrl, POLL_INTERVAL_MS, SAFETY_NET_POLL_MS, type GenerationFilters, type GenerationPage } from "./client-data";
import { useGenerationEvents, type LiveStatus } from "./use-generation-events";

/**
 * The order in which this tab sent requests and heard events. A page requested
 * after an event was heard already holds that change (the server publishes
 * after the write); one requested before may not.
 */
let clock = 0;
const tick = () => ++clock;
/** A page as fetched, stamped with when it was requested (the server-rendered page: 0, before any event). */
type FetchedPage = GenerationPage & { requestedAt?: number };
type Heard = { change: LiveChange; at: number };

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
  const fetchPage = useCallback(async (url: string): Promise<FetchedPage> => {
    const requestedAt = tick();
    return { ...(await fetchJson<GenerationPage>(liveRef.current ? `${url}&refresh=background` : url)), requestedAt };
  }, []);
  const swr = useSWRInfinite<FetchedPage>(
    (_index, previous: GenerationPage | null) => (previous && !previous.nextCursor ? null : generationsUrl(filters, previous?.nextCursor)),
    fetchPage,
    { fallbackData: sameAsInitial ? [initial.page] : undefined, keepPreviousData: true },
  );
  const { mutate } = swr;
  const refresh = useCoalescedRefresh(mutate);
  const { data, hear } = useHeardChanges(swr.data, filters);
  const live = useGenerationEvents({
    // A card on screen changes from the event itself; anything else is read.
    onChange: (change) => {
      if (!hear(change)) refresh(change.id);
    },
    // The first open follows the server render: only news if something was in progress.
    onResync: ({ initial }) => {
      if (!initial || anyInProgress(data)) void mutate();
    },
  });
  useEffect(() => {
    liveRef.current = live === "live";
  }, [live]);
  usePollWhileInProgress({ data, mutate }, live);
  // Shown dimmed only while what is on screen belongs to other filters (kept
  // from before a change): the server's first page is current, even while SWR
  // revalidates it after hydration (SWR counts fallback data as not loaded).
  const stale = swr.isLoading && !sameAsInitial;
  return { ...swr, data, live, stale };
}

/**
 * The changes heard on the stream, laid over the fetched pages: a card
 * renders its new state, outcome and stored copy from the event alone. Kept
 * beside SWR's cache rather than written into it: SWR drops the answer of any
 * request that a local write overlapped (a new card's refetch would be lost),
 * and a partial revalidation of the infinite list reads pages back from their
 * own cache entries (a page the refetch skips would lose the change). A change
 * stops applying to a page requested after it was heard.
 *
 * `hear` returns false when the change is not for a card on screen, or
 * carries no card: the caller refetches.
 */
function useHeardChanges(fetched: FetchedPage[] | undefined, filters: GenerationFilters) {
  const [heard, setHeard] = useState<ReadonlyMap<string, Heard>>(new Map());
  const latest = useRef(fetched);
  useEffect(() => {
    latest.current = fetched;
  });
  const hear = useCallback((change: LiveChange) => {
    if (!change.card && !change.removed) return false;
    const pages = latest.current ?? [];
    // Kept even for a card not on screen yet: a read already under way may bring it as it was before the change.
    const at = tick();
    // What every page shown was requested after is in the pages already.
    const oldest = pages.length > 0 ? Math.min(...pages.map((page) => page.requestedAt ?? 0)) : 0;
    setHeard((current) => new Map([...current].filter(([, h]) => h.at > oldest)).set(change.id, { change, at }));
    return !!change.removed || pages.some((page) => page.items.some((g) => g.id === change.id));
  }, []);
  const data = useMemo(() => (fetched && heard.size > 0 ? fetched.map((page) => withHeard(page, heard, filters)) : fetched), [fetched, heard, filters]);
  return { data, hear };
}

function withHeard(page: FetchedPage, heard: ReadonlyMap<string, Heard>, filters: GenerationFilters): FetchedPage {
  let changed = false;
  const items = page.items.flatMap((generation) => {
    const h = heard.get(generation.id);
    // ISO times of one format compare as text; an equal time is the same row with a newer copy.
    if (!h || h.at < (page.requestedAt ?? 0) || h.change.updatedAt < generation.updatedAt) return [generation];
    changed = true;
    if (h.change.removed) return [];
    const next: Generation = { ...generation, ...h.change.card, state: h.change.state, updatedAt: h.change.updatedAt };
    return matchesFilters(next, filters) ? [next] : [];
  });
  return changed ? { ...page, items } : page;
}

/**
 * Refetches, on events, the first page (where new cards appear) and any page
 * showing a changed generation. One refetch at a time: SWR drops the answer of
 * a request that a newer mutate overtook, so a steady stream of events would
 * otherwise keep any answer from ever being shown. Events that arrive
 * meanwhile are gathered into the next refetch.
 */
function useCoalescedRefresh(mutate: SWRInfiniteResponse<FetchedPage>["mutate"]) {
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
function usePollWhileInProgress({ data, mutate }: Pick<SWRInfiniteResponse<FetchedPage>, "data" | "mutate">, live: LiveStatus) {
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
