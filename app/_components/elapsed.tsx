"use client";
// "queued 0:12" on a generation in progress, ticking from the shared clock.
import { formatElapsed } from "./format";
import { useNow } from "./use-now";

export function Elapsed({ since, className = "" }: { since: string; className?: string }) {
  const now = useNow();
  // Rendered only in the browser: the server's clock would not match on hydration.
  if (now === null) return null;
  return (
    <span className={`tabular-nums ${className}`}>
      queued <time dateTime={since}>{formatElapsed(now - Date.parse(since))}</time>
    </span>
  );
}
