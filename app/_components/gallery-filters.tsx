"use client";
// "Search [prompt] · Show [all videos] from [all models]". The labels avoid
// the word "Model" on purpose: the form's model picker owns that accessible name.
import { useEffect, useState } from "react";
import type { GenerationState } from "@/lib/generations/generation";
import { SEARCH_MAX_LENGTH } from "@/lib/generations/search-text";
import type { ModelSpec } from "@/lib/models/catalog";
import { STATE_LABELS } from "./state-badge";
import type { GenerationFilters } from "./client-data";

const STATE_OPTIONS = (["PENDING", "SUCCESS", "FAILURE", "SUBMIT_FAILED", "SUBMITTING"] as const).map((value) => ({
  value,
  label: STATE_LABELS[value],
}));

/** Typing pauses this long before the gallery searches: one request per word, not per key. */
const SEARCH_DEBOUNCE_MS = 300;

const control =
  "rounded-lg border border-zinc-300 bg-white py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 dark:border-zinc-700 dark:bg-zinc-900";
const select = `${control} pr-8 pl-2`;

export function GalleryFilters({
  filters,
  models,
  onChange,
}: {
  filters: GenerationFilters;
  models: readonly ModelSpec[];
  onChange: (filters: GenerationFilters) => void;
}) {
  const [query, setQuery] = useState(filters.q ?? "");
  // "Show all videos" (and reloads) reset the box from the filters.
  const [shown, setShown] = useState(filters.q);
  if (shown !== filters.q) {
    setShown(filters.q);
    setQuery(filters.q ?? "");
  }
  useEffect(() => {
    const q = query.trim() || undefined;
    if (q === filters.q) return;
    const timer = setTimeout(() => onChange({ ...filters, q }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query, filters, onChange]);

  return (
    <div role="group" aria-label="Filter the gallery" className="flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
      <span className="flex min-w-0 flex-[1_1_14rem] items-center gap-2" role="search">
        <label htmlFor="filter-q" className="sr-only">
          Search prompts
        </label>
        <input
          id="filter-q"
          type="search"
          value={query}
          maxLength={SEARCH_MAX_LENGTH}
          placeholder="Search prompts"
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") onChange({ ...filters, q: query.trim() || undefined });
          }}
          className={`${control} w-full px-3 placeholder:text-zinc-500 dark:placeholder:text-zinc-400`}
        />
      </span>
      <span className="flex items-center gap-2">
        <label htmlFor="filter-state" className="text-zinc-600 dark:text-zinc-400">
          Show
        </label>
        <select
          id="filter-state"
          className={select}
          value={filters.state ?? ""}
          onChange={(e) => onChange({ ...filters, state: (e.target.value || undefined) as GenerationState | undefined })}
        >
          <option value="">All videos</option>
          {STATE_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </span>
      <span className="flex min-w-0 items-center gap-2">
        <label htmlFor="filter-model" className="text-zinc-600 dark:text-zinc-400">
          from
        </label>
        <select
          id="filter-model"
          className={`${select} max-w-[14rem]`}
          value={filters.model ?? ""}
          onChange={(e) => onChange({ ...filters, model: e.target.value || undefined })}
        >
          <option value="">all models</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </select>
      </span>
    </div>
  );
}
