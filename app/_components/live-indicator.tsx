"use client";
// A small sign of how this tab hears about changes, for QA and the curious:
// "Live" while the event stream is open, "Polling" while it falls back.
import type { LiveStatus } from "./use-generation-events";

const LABELS: Record<LiveStatus, { text: string; title: string; dot: string }> = {
  live: { text: "Live", title: "Updates arrive the moment they happen", dot: "bg-emerald-500" },
  polling: { text: "Polling", title: "Live updates are unavailable: checking every few seconds", dot: "bg-amber-500" },
  connecting: { text: "Connecting", title: "Opening live updates", dot: "bg-zinc-400" },
};

export function LiveIndicator({ status, className = "" }: { status: LiveStatus; className?: string }) {
  const { text, title, dot } = LABELS[status];
  return (
    <span
      data-testid="live-indicator"
      data-status={status}
      title={title}
      className={`inline-flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400 ${className}`}
    >
      <span aria-hidden="true" className={`size-2 rounded-full ${dot} ${status === "live" ? "motion-safe:animate-pulse" : ""}`} />
      <span>
        <span className="sr-only">Updates: </span>
        {text}
      </span>
    </span>
  );
}
