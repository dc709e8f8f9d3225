"use client";
// The gallery's data: pages of the app's own API, newest first, behind a cursor.
// Polled every few seconds only while something shown is in progress (SWR
// pauses while the tab is hidden and revalidates on focus).
import { useEffect } from "react";
import useSWRInfinite, { type SWRInfiniteResponse } from "swr/infinite";
import type { Generation, GenerationState } from "@/lib/generations/generation";
import { isCopying } from "@/lib/media/media-copy";

export type GenerationPage = { items: Generation[]; nextCursor: string | null };
export type GenerationFilters = { state?: GenerationState; model?: string; q?: string };

export const PAGE_SIZE = 24;
export const POLL_INTERVAL_MS = 3000;

export const isInProgress = (g: Generation) => g.state === "PENDING" || g.state === "SUBMITTING";
/** Still changing: a task in progress, or its result still being copied into storage. */
const isChanging = (g: Generation) => isInProgress(g) || (g.state === "SUCCESS" && isCopying(g));
const anyInProgress = (pages: GenerationPage[] | undefined) => !!pages?.some((page) => page.items.some(isChanging));

export class FetchError extends Error {
  constructor(readonly status: number | null) {
    super(status === null ? "Network error" : `Request failed with ${status}`);
  }
}

export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { Accept: "application/json" } }).catch(() => {
    throw new FetchError(null);
  });
  if (!response.ok) throw new FetchError(response.status);
  return response.json() as Promise<T>;
}

export function generationsUrl(filters: GenerationFilters, cursor?: string | null): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.state) params.set("state", filters.state);
  if (filters.model) params.set("model", filters.model);
  if (filters.q) params.set("q", filters.q);
  if (cursor) params.set("cursor", cursor);
  return `/api/generations?${params}`;
}

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
  const swr = useSWRInfinite<GenerationPage>(
    (_index, previous: GenerationPage | null) => (previous && !previous.nextCursor ? null : generationsUrl(filters, previous?.nextCursor)),
    fetchJson,
    { fallbackData: sameAsInitial ? [initial.page] : undefined, keepPreviousData: true },
  );
  usePollWhileInProgress(swr);
  return swr;
}

/**
 * SWR's refreshInterval would refetch only the first page (or, with
 * revalidateAll, every page loaded). Here a poll refetches the first page
 * and the older pages that still show work in progress, so it costs one
 * request however far the user has scrolled.
 */
function usePollWhileInProgress({ data, mutate }: Pick<SWRInfiniteResponse<GenerationPage>, "data" | "mutate">) {
  const polling = anyInProgress(data);
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible") return;
      void mutate(undefined, {
        // `page` is undefined when a new item on top shifted this page's cursor.
        revalidate: (page: GenerationPage | undefined, url) => !page || !String(url).includes("cursor=") || page.items.some(isChanging),
      });
    }, POLL_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [polling, mutate]);
}
