// The browser's side of the app's API in one place: the fetcher and its error
// type, the SWR keys and URLs, and the gallery's page size (the server's first
// page uses it too). Hooks import from here, never from each other.
import type { Generation, GenerationState } from "@/lib/generations/generation";

export const PAGE_SIZE = 24;

/** How often a page with work in progress polls while the event stream is not open. */
export const POLL_INTERVAL_MS = 3000;
/**
 * While events flow, a poll only as a safety net: for an event lost, and for a
 * callback that never comes (a browser's read is also what makes the server
 * ask the gateway). Idle tabs never poll at all.
 */
export const SAFETY_NET_POLL_MS = 10_000;

/** The viewer's own credits (never the gateway's balance). */
export const CREDITS_KEY = "/api/credits";
/** `welcome: "ceiling"`: not welcomed, because today's welcome credits are all given. */
export type CreditBalance = { credits: number; held: number; welcome?: "ceiling" };
export const GATEWAY_STATUS_KEY = "/api/gateway";
export const SPEND_KEY = "/api/spend";
export const COMPLETION_TIMES_KEY = "/api/completion-times";
export const EVENTS_URL = "/api/generations/events";

export type GenerationPage = { items: Generation[]; nextCursor: string | null };
export type GenerationFilters = { state?: GenerationState; model?: string; q?: string };

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

/** One page of the gallery, as `GET /api/generations` serves it. */
export function generationsUrl(filters: GenerationFilters, cursor?: string | null): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.state) params.set("state", filters.state);
  if (filters.model) params.set("model", filters.model);
  if (filters.q) params.set("q", filters.q);
  if (cursor) params.set("cursor", cursor);
  return `/api/generations?${params}`;
}
