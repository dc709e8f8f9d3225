// Where Stripe Checkout returns after a payment: the new balance once the
// webhook has credited the session, and until then an honest "processing".
// With credits off (CREDITS_ENABLED=false): a 404, as /credits is.
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { showCreditBalance } from "@/lib/credits/balance";
import { creditsEnabled } from "@/lib/credits/pricing";
import { visitorKey } from "@/lib/rate-limit";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { getCheckoutStatus, type CheckoutStatus } from "@/lib/payments/checkout-status";
import { getViewer } from "@/lib/viewer/get-viewer";
import { CheckoutProgress } from "../_components/checkout-progress";
import { BalanceLine } from "../_components/credits-ui";

export const dynamic = "force-dynamic";
export const metadata = { ...pageMetadata({ title: "Payment", description: "Your credit purchase." }), robots: { index: false } };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function CheckoutSuccessPage({ searchParams }: { searchParams: SearchParams }) {
  if (!creditsEnabled()) notFound();
  const { session_id: raw } = await searchParams;
  const sessionId = typeof raw === "string" ? raw : "";
  const viewer = await getViewer();
  const visitor = visitorKey(await headers());
  const owners = viewer ? [viewer.id, ...(viewer.guestId && viewer.guestId !== viewer.id ? [viewer.guestId] : [])] : [];
  const [status, balance]: [CheckoutStatus, { credits: number } | null] = viewer
    ? await Promise.all([getCheckoutStatus({ sessionId, owners, visitor }), showCreditBalance({ ownerId: viewer.id, visitor })])
    : [{ state: "not_found" }, null];

  return (
    <main id="main" className="mx-auto max-w-2xl space-y-6 px-4 py-6 sm:px-6">
      <div className="space-y-1">
        <h1 className="text-lg font-semibold">Payment</h1>
        {balance ? <BalanceLine credits={balance.credits} /> : null}
      </div>
      <CheckoutProgress status={status} sessionId={sessionId} />
      <p className="text-sm">
        <Link href="/" className="rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-brand-400">
          ← Gallery
        </Link>
        <span className="text-zinc-400"> · </span>
        <Link href="/credits" className="rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-brand-400">
          Buy credits
        </Link>
      </p>
    </main>
  );
}
