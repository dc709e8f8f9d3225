"use client";
// The viewer's own credits in the header, linking to where they buy more;
// what generations in progress hold is shown beside it while there is any.
import Link from "next/link";
import { useCredits } from "./use-credits";

const whole = (n: number) => n.toLocaleString("en-US");

export function CreditsBadge() {
  const { data, error } = useCredits();
  const label = error ? "unavailable" : data ? whole(data.credits) : "…";
  const held = data && data.held > 0 ? data.held : 0;
  return (
    <Link
      href="/credits"
      title={held ? `${whole(held)} more held by videos in progress` : "Buy credits"}
      className="rounded-full bg-white px-3 py-1 text-sm shadow-sm ring-1 ring-zinc-200 hover:ring-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:bg-zinc-900 dark:ring-zinc-800"
    >
      <span className="font-semibold tabular-nums" data-testid="credits-balance">
        {label}
      </span>
      <span className="text-zinc-600 dark:text-zinc-400"> {data?.credits === 1 ? "credit" : "credits"}</span>
      {held ? (
        <span className="text-zinc-500 dark:text-zinc-400" data-testid="credits-held">
          {" "}
          · {whole(held)} held
        </span>
      ) : null}
    </Link>
  );
}
