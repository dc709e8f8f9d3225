import type { GenerationState } from "@/lib/generations/generation";

/** What each state is called everywhere a user meets it: badges, filters, announcements. */
export const STATE_LABELS: Record<GenerationState, string> = {
  SUBMITTING: "Submitting",
  PENDING: "Generating",
  SUCCESS: "Ready",
  FAILURE: "Failed",
  SUBMIT_FAILED: "Not submitted",
};

const STYLES: Record<GenerationState, string> = {
  SUBMITTING: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  PENDING: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  SUCCESS: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  FAILURE: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  SUBMIT_FAILED: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
};

export function StateBadge({ state, overdue = false }: { state: GenerationState; overdue?: boolean }) {
  const label = STATE_LABELS[state];
  const className = STYLES[state];
  return (
    <span className={`rounded-full px-2 py-0.5 text-xs font-semibold ${className}`} data-testid="state-badge">
      {label}
      {overdue ? " · taking unusually long" : ""}
    </span>
  );
}
