"use client";
// Beside the balance: what this visitor has used of their spending cap
// (in flight at its estimate, plus what succeeded this window), in their own
// credits (or, with the kit's credits off, as a share of the cap): never the
// gateway's figures, which are the operator's. Hidden without a cap.
import { useSpend } from "./use-spend";

const WINDOW_WORDS = { hour: "this hour", day: "today", week: "this week" } as const;

export function SpendBadge() {
  const { data } = useSpend();
  const spend = data?.spend;
  if (!spend) return null;
  const full = spend.used >= spend.limit - 1e-6;
  const shown = spend.shown;
  const whole = (n: number) => n.toLocaleString("en-US");
  const resets = `${spend.resetsAt.slice(0, 16).replace("T", " ")} UTC`;
  return (
    <p
      className={`rounded-full px-3 py-1 text-sm shadow-sm ring-1 ${
        full
          ? "bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950/60 dark:text-amber-100 dark:ring-amber-800"
          : "bg-white ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
      }`}
      title={`Your cap resets at ${resets}`}
    >
      <span className="text-zinc-600 dark:text-zinc-400">Your spend {WINDOW_WORDS[spend.window]} </span>
      <span className="font-semibold tabular-nums" data-testid="spend-used">
        {shown.unit === "percent" ? `${shown.used}%` : whole(shown.used)}
      </span>
      <span className="text-zinc-600 dark:text-zinc-400"> of </span>
      <span className="tabular-nums" data-testid="spend-limit">
        {shown.unit === "percent" ? "your limit" : `${whole(shown.limit)} credits`}
      </span>
    </p>
  );
}
