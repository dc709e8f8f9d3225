"use client";
// "Show [all videos] from [all models]". The labels avoid the word "Model" on
// purpose: the form's model picker owns that accessible name.
import type { GenerationState } from "@/lib/generations/generation";
import type { ModelSpec } from "@/lib/models/catalog";
import { STATE_LABELS } from "./state-badge";
import type { GenerationFilters } from "./use-generations";

const STATE_OPTIONS = (["PENDING", "SUCCESS", "FAILURE", "SUBMIT_FAILED", "SUBMITTING"] as const).map((value) => ({
  value,
  label: STATE_LABELS[value],
}));

const select =
  "rounded-lg border border-zinc-300 bg-white py-1.5 pr-8 pl-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 dark:border-zinc-700 dark:bg-zinc-900";

export function GalleryFilters({
  filters,
  models,
  onChange,
}: {
  filters: GenerationFilters;
  models: readonly ModelSpec[];
  onChange: (filters: GenerationFilters) => void;
}) {
  return (
    <div role="group" aria-label="Filter the gallery" className="flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
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
