// /admin's credits: the operator's balance at the gateway (with a warning when
// it runs low), what was sold against what the gateway cost, users' balances
// reconciled with what was sold, granted, adjusted, charged and held, what
// they owe, how much of today's welcome grants are used, and the form that
// grants or takes an owner's credits.
import { formatPackPrice } from "@/lib/credits/prices";
import { readCreditsOverview } from "@/lib/credits/overview";
import { readWelcomeCeiling } from "@/lib/credits/welcome-ceiling";
import { getCreditBalance } from "@/lib/gateway/balance";
import { AdjustCreditsForm } from "./adjust-credits-form";

/** Below this the gateway refuses new tasks soon: about the top-up the gateway suggests to begin with. */
const LOW_GATEWAY_BALANCE = 5;
const card = "rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 dark:bg-zinc-900 dark:ring-zinc-800";
const whole = (n: number) => n.toLocaleString("en-US");

export async function CreditsPanel() {
  const [gateway, overview, ceiling] = await Promise.all([getCreditBalance({ fresh: true }).catch(() => null), readCreditsOverview(), readWelcomeCeiling()]);
  const low = gateway !== null && gateway < LOW_GATEWAY_BALANCE;
  return (
    <section aria-labelledby="credits" className={`${card} space-y-4`}>
      <h2 id="credits" className="font-semibold">
        Credits
      </h2>
      <dl className="grid gap-3 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-zinc-600 dark:text-zinc-400">Your balance at the gateway</dt>
          <dd className="font-semibold tabular-nums" data-testid="gateway-balance">
            {gateway === null ? "unavailable" : gateway.toLocaleString("en-US", { maximumFractionDigits: 4 })}
          </dd>
          {low ? (
            <dd role="alert" className="mt-1 text-red-700 dark:text-red-300">
              Low: top up the gateway account, or new videos will be refused.
            </dd>
          ) : null}
        </div>
        <div>
          <dt className="text-zinc-600 dark:text-zinc-400">Sold (less refunds) · spent at the gateway</dt>
          <dd className="tabular-nums" data-testid="sold-vs-spent">
            {overview.sales.length === 0
              ? "nothing sold yet"
              : overview.sales.map((s) => `${formatPackPrice({ unitAmount: s.paid - s.refunded, currency: s.currency })} (${s.purchases})`).join(", ")}{" "}
            · {overview.gatewaySpent.toLocaleString("en-US", { maximumFractionDigits: 4 })} gateway credits
          </dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-zinc-600 dark:text-zinc-400">Users’ balances, reconciled</dt>
          <dd className="tabular-nums" data-testid="credits-reconciled">
            {whole(overview.balances)} = {whole(overview.creditsSold)} sold + {whole(overview.creditsGranted)} granted {overview.creditsAdjusted < 0 ? "−" : "+"}{" "}
            {whole(Math.abs(overview.creditsAdjusted))} adjusted − {whole(overview.creditsCharged)} charged − {whole(overview.creditsHeld)} held
            {overview.unreconciled ? ` ${overview.unreconciled < 0 ? "−" : "+"} ${whole(Math.abs(overview.unreconciled))} unexplained` : ""}
          </dd>
          {overview.unreconciled ? (
            <dd role="alert" className="mt-1 text-red-700 dark:text-red-300">
              The ledger does not add up: {whole(Math.abs(overview.unreconciled))} credits are in balances that no sale, grant, adjustment, charge or hold explains. Look for a hold settled twice or a row written outside the ledger.
            </dd>
          ) : null}
          {overview.creditsOwed ? (
            <dd className="mt-1 text-zinc-600 dark:text-zinc-400">{whole(overview.creditsOwed)} owed (refunded or disputed after they were spent; taken from their next credits)</dd>
          ) : null}
        </div>
        <div>
          <dt className="text-zinc-600 dark:text-zinc-400">Welcome grants today</dt>
          <dd className="tabular-nums" data-testid="welcome-ceiling">
            {ceiling.limit > 0
              ? `${whole(ceiling.used)} of ${whole(ceiling.limit)} (CREDITS_WELCOME_GRANTS_PER_DAY; a new day starts ${ceiling.resetsAt.toISOString().slice(11, 16)} UTC)`
              : `no daily ceiling (CREDITS_WELCOME_GRANTS_PER_DAY=0)`}
          </dd>
          {ceiling.limit > 0 && ceiling.used >= ceiling.limit ? (
            <dd role="alert" className="mt-1 text-amber-800 dark:text-amber-300">
              Reached: new visitors get no welcome credits until then.
            </dd>
          ) : null}
        </div>
      </dl>
      <AdjustCreditsForm />
    </section>
  );
}
