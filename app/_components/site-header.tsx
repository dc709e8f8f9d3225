// The header on every page: the product name home, the visitor's spend against
// their cap and the credit balance, then the site-wide banners.
import Link from "next/link";
import { brand } from "@/lib/brand";
import { callbacksReachable } from "@/lib/generations/callback-url";
import { GatewayBanner, PollingBanner } from "./banners";
import { CreditsBadge } from "./credits-badge";
import { SpendBadge } from "./spend-badge";

export function SiteHeader() {
  return (
    <header className="mx-auto max-w-6xl space-y-3 px-4 pt-4 sm:px-6 sm:pt-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <Link
          href="/"
          className="rounded text-xl font-bold tracking-tight focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
        >
          {brand.wordmark[0]}
          <span className="text-brand-600 dark:text-brand-400">{brand.wordmark[1]}</span>
        </Link>
        <div className="flex flex-wrap items-center gap-2">
          <SpendBadge />
          <CreditsBadge />
        </div>
      </div>
      <GatewayBanner />
      {callbacksReachable() ? null : <PollingBanner />}
    </header>
  );
}
