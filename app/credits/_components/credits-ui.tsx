// The few pieces the credits pages share: the card frame, the balance line and notices.
import { formatCreditCount } from "@/lib/credits/prices";

export { formatCreditCount };

export const card = "rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 dark:bg-zinc-900 dark:ring-zinc-800";

export function BalanceLine({ credits, held }: { credits: number; held?: number }) {
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400">
      Your balance{" "}
      <strong className="text-base font-semibold text-zinc-900 tabular-nums dark:text-zinc-100" data-testid="credit-balance">
        {formatCreditCount(credits)}
      </strong>
      {held ? <span> · {formatCreditCount(held)} held by videos in progress</span> : null}
    </p>
  );
}

const tones = {
  info: "bg-sky-50 text-sky-950 ring-sky-200 dark:bg-sky-950/50 dark:text-sky-100 dark:ring-sky-900",
  warn: "bg-amber-50 text-amber-950 ring-amber-200 dark:bg-amber-950/50 dark:text-amber-100 dark:ring-amber-900",
  success: "bg-emerald-50 text-emerald-950 ring-emerald-200 dark:bg-emerald-950/50 dark:text-emerald-100 dark:ring-emerald-900",
  error: "bg-red-50 text-red-900 ring-red-200 dark:bg-red-950/60 dark:text-red-100 dark:ring-red-900",
} as const;

export function Notice({ tone, children, role = "status" }: { tone: keyof typeof tones; children: React.ReactNode; role?: "status" | "alert" }) {
  return (
    <div role={role} className={`rounded-xl px-4 py-3 text-sm ring-1 ${tones[tone]}`}>
      {children}
    </div>
  );
}
