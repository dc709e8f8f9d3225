// Buy credits: the viewer's balance and the packs on sale, each with its Buy
// button (Stripe Checkout, or the local payments simulator without a key),
// then the history of the viewer's credits. With credits off
// (CREDITS_ENABLED=false) there is nothing to buy: a 404, as the header has no link here.
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { showCreditBalance } from "@/lib/credits/balance";
import { creditsEnabled } from "@/lib/credits/pricing";
import { visitorKey } from "@/lib/rate-limit";
import { CREDIT_PACKS, formatPackPrice } from "@/lib/credits/prices";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { CHECKOUT_CANCELLED } from "@/lib/payments/checkout";
import { paymentsMode } from "@/lib/payments/stripe-client";
import { getViewer } from "@/lib/viewer/get-viewer";
import { BuyPackForm } from "./_components/buy-pack-form";
import { CreditHistory } from "./_components/credit-history";
import { BalanceLine, card, formatCreditCount, Notice } from "./_components/credits-ui";

export const dynamic = "force-dynamic";
export const metadata = pageMetadata({ title: "Buy credits", description: "Your credit balance, and credit packs to buy." });

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function CreditsPage({ searchParams }: { searchParams: SearchParams }) {
  if (!creditsEnabled()) notFound();
  const { checkout } = await searchParams;
  const viewer = await getViewer();
  const balance = viewer ? await showCreditBalance({ ownerId: viewer.id, visitor: visitorKey(await headers()) }) : null;
  const mode = paymentsMode();
  const cheapest = Math.max(...CREDIT_PACKS.map((p) => p.unitAmount / p.credits));

  return (
    <main id="main" className="mx-auto max-w-6xl space-y-6 px-4 py-6 sm:px-6">
      <div className="space-y-1">
        <h1 className="text-lg font-semibold">Credits</h1>
        {balance ? <BalanceLine credits={balance.credits} held={balance.held} /> : <p className="text-sm">Sign in to see your credits.</p>}
      </div>
      {checkout === CHECKOUT_CANCELLED ? (
        <Notice tone="warn">
          <strong className="font-semibold">Checkout cancelled.</strong> Nothing was charged and your balance is unchanged.
        </Notice>
      ) : null}
      {mode === "off" ? (
        <Notice tone="warn">
          <strong className="font-semibold">Buying credits is off on this server.</strong> The operator has not connected a payment provider yet.
        </Notice>
      ) : null}
      <section aria-labelledby="packs" className="space-y-3">
        <h2 id="packs" className="text-base font-semibold">
          Buy credits
        </h2>
        <ul className="grid gap-4 sm:grid-cols-3">
          {CREDIT_PACKS.map((pack) => {
            const saving = Math.round((1 - pack.unitAmount / pack.credits / cheapest) * 100);
            return (
              <li key={pack.id} className={`${card} flex flex-col gap-3`} aria-labelledby={`pack-${pack.id}`}>
                <div>
                  <h3 id={`pack-${pack.id}`} className="font-semibold">
                    {pack.name}
                  </h3>
                  <p className="text-2xl font-bold tabular-nums">{formatCreditCount(pack.credits)}</p>
                  <p className="text-sm text-zinc-600 dark:text-zinc-400">
                    {formatPackPrice(pack)}
                    {saving > 0 ? <span className="text-emerald-700 dark:text-emerald-400"> · save {saving}%</span> : null}
                  </p>
                </div>
                <div className="mt-auto">
                  <BuyPackForm packId={pack.id} packName={pack.name} disabled={mode === "off" || !viewer} />
                </div>
              </li>
            );
          })}
        </ul>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          {mode === "simulator"
            ? "Test mode: payments go to the local payments simulator and no money moves."
            : "Payments are processed by Stripe. Credits are added as soon as your payment is confirmed."}{" "}
          <Link href="/" className="rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-brand-400">
            Back to the gallery
          </Link>
        </p>
      </section>
      {viewer ? <CreditHistory ownerId={viewer.id} /> : null}
    </main>
  );
}
