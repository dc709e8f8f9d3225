"use client";
// Honest progress for a generation in progress: elapsed time, and against this
// app's own history a bar with the remaining time. No history, no bar; past
// the typical time it says so; past the overdue threshold it says what the app does.
import type { Generation } from "@/lib/generations/generation";
import { formatRemaining, progressOf } from "@/lib/generations/completion-time";
import { formatElapsed } from "./format";
import { useNow } from "./use-now";

export function GenerationProgress({ generation, typicalMs }: { generation: Generation; typicalMs: number | null }) {
  const now = useNow();
  // Rendered only in the browser: the server's clock would not match on hydration.
  if (now === null) return <div className="h-10" aria-hidden />;
  const elapsedMs = now - Date.parse(generation.createdAt);
  const progress = progressOf({ elapsedMs, typicalMs, overdue: generation.overdue });
  const elapsed = (
    <span className="tabular-nums">
      <time dateTime={generation.createdAt}>{formatElapsed(elapsedMs)}</time> elapsed
    </span>
  );
  const message =
    progress.kind === "on-track"
      ? `${formatRemaining(progress.remainingMs)} left`
      : progress.kind === "slow"
        ? "Taking longer than usual"
        : progress.kind === "overdue"
          ? "Still checking with the gateway"
          : null;
  return (
    <div className="space-y-1.5 text-xs text-zinc-600 dark:text-zinc-400" data-testid="progress" data-progress={progress.kind}>
      <div className="flex items-center justify-between gap-2">
        {elapsed}
        {message ? <span className={progress.kind === "on-track" ? "" : "font-medium text-amber-800 dark:text-amber-300"}>{message}</span> : null}
      </div>
      {progress.kind === "unknown" ? null : (
        // Not a live region: the value changes every second; state changes are announced by the gallery once.
        <div
          role="progressbar"
          aria-label={`Progress of “${generation.prompt.slice(0, 60)}”`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={progress.kind === "on-track" ? Math.round(progress.fraction * 100) : undefined}
          aria-valuetext={message ?? undefined}
          className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700"
        >
          <div
            className={`h-full rounded-full transition-[width] duration-1000 ease-linear motion-reduce:transition-none ${
              progress.kind === "on-track" ? "bg-brand-600 dark:bg-brand-400" : "animate-pulse bg-amber-500 motion-reduce:animate-none"
            }`}
            style={{ width: progress.kind === "on-track" ? `${Math.max(2, progress.fraction * 100)}%` : "100%" }}
          />
        </div>
      )}
    </div>
  );
}
