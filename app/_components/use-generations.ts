"use client";
// The gallery's data: the app's own API, polled every few seconds only while
// something is pending (SWR pauses while the tab is hidden and revalidates on focus).
import useSWR from "swr";
import type { Generation } from "@/lib/generations/generation";

export type GenerationPage = { items: Generation[]; nextCursor: string | null };

export const GENERATIONS_KEY = "/api/generations?limit=24";
export const POLL_INTERVAL_MS = 3000;

export const isInProgress = (g: Generation) => g.state === "PENDING" || g.state === "SUBMITTING";

export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`Request failed with ${response.status}`);
  return response.json() as Promise<T>;
}

export function useGenerations(fallbackData: GenerationPage) {
  return useSWR<GenerationPage>(GENERATIONS_KEY, fetchJson, {
    fallbackData,
    refreshInterval: (data) => (data?.items.some(isInProgress) ? POLL_INTERVAL_MS : 0),
    keepPreviousData: true,
  });
}
