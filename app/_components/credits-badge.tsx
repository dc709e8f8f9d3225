"use client";
// The account balance in the header. It is read from the gateway, so when it
// fails the gateway banner explains why; here it just says "unavailable".
import { formatCredits } from "./format";
import { useCredits } from "./use-credits";

export function CreditsBadge() {
  const { data, error } = useCredits();
  const label = error ? "unavailable" : data ? formatCredits(data.credits) : "…";
  return (
    <p className="rounded-full bg-white px-3 py-1 text-sm shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
      <span className="text-zinc-600 dark:text-zinc-400">Credits </span>
      <span className="font-semibold tabular-nums" data-testid="credits-balance">
        {label}
      </span>
    </p>
  );
}
