"use client";
// "Remix" hands a generation's model and inputs to the form: a card or a
// detail page writes here, the form reads (on mount too, after navigating to
// the gallery), so neither needs a handle on the other.
import { useSyncExternalStore } from "react";

export type RemixRequest = { model: string; prompt: string; input: Record<string, unknown>; at: number };

let request: RemixRequest | null = null;
const listeners = new Set<() => void>();

export function requestRemix(remix: Omit<RemixRequest, "at">) {
  request = { ...remix, at: Date.now() };
  for (const listener of listeners) listener();
}

/** The form has filled itself from this request: a form mounted later (back in the gallery) starts empty. */
export function finishRemix(at: number) {
  if (request?.at === at) request = null;
}

export function useRemixRequest(): RemixRequest | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => request,
    () => null,
  );
}

/** A stored input value as the form's field shows it (URL lists one per line). */
export function fieldValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join("\n");
  return value === null || value === undefined ? "" : String(value);
}
