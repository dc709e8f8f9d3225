"use client";
import useSWR from "swr";
import { fetchJson } from "./use-generations";

export const CREDITS_KEY = "/api/credits";

export function useCredits() {
  return useSWR<{ credits: number }>(CREDITS_KEY, fetchJson, { shouldRetryOnError: false });
}
