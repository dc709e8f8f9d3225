// The header on every page: the product name home, the visitor's spend against
// their cap and the credit balance (when credits are on), who is signed in, then the site-wide banners.
import { createHash } from "node:crypto";
import Link from "next/link";
import { brand } from "@/lib/brand";
import { creditsEnabled } from "@/lib/credits/pricing";
import { callbacksReachable } from "@/lib/generations/callback-url";
import { getViewer } from "@/lib/viewer/get-viewer";
import { GatewayBanner, PollingBanner } from "./banners";
import { CreditsBadge } from "./credits-badge";
import { IdentityWatcher } from "./identity-watcher";
import { SpendBadge } from "./spend-badge";

const navLink =
  "rounded px-1 text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400";

export async function SiteHeader() {
  const viewer = await getViewer();
  // Which identity this page was rendered for, as the browser's other tabs compare it: a hash, never the id.
  const identity = createHash("sha256").update(viewer?.id ?? "nobody").digest("base64url").slice(0, 16);
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
          {creditsEnabled() ? <CreditsBadge /> : null}
          {viewer?.account ? (
            <Link href="/account" className={navLink} title={`Signed in as ${viewer.account.email}`}>
              Account
            </Link>
          ) : (
            <Link href="/sign-in" className={navLink}>
              Sign in
            </Link>
          )}
        </div>
      </div>
      <IdentityWatcher identity={identity} />
      <GatewayBanner />
      {callbacksReachable() ? null : <PollingBanner />}
    </header>
  );
}
