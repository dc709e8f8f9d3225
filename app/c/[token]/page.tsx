// A shared comparison's public page (/c/<token>): its videos side by side,
// each with its model, the owner's pick and, if the owner left it on, the
// prompt; "Play all from the start" as on the owner's view. Nothing of who
// made it. Read on every request (a link the owner stopped sharing is a 404
// at once), kept out of search engines, previewed where it is pasted.
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { PreviewTags } from "@/app/_components/preview-tags";
import { brand } from "@/lib/brand";
import { comparisonPreviewDescription, comparisonPreviewTags, comparisonPreviewTitle } from "@/lib/sharing/preview-tags";
import { findSharedComparison } from "@/lib/sharing/shared-comparison";
import { PublicComparison } from "./_components/public-comparison";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ token: string }> };

// One read per request for the metadata and the page; nothing kept past it.
const readShare = cache((token: string) => findSharedComparison({ token }));

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const comparison = await readShare((await params).token);
  const robots = { index: false, follow: false };
  if (!comparison) return { title: "Comparison not found", robots };
  // The layout's site-wide preview is replaced by this comparison's (rendered by the page: PreviewTags).
  return { title: comparisonPreviewTitle(comparison), description: comparisonPreviewDescription(comparison, brand.name), robots, openGraph: null, twitter: null };
}

export default async function SharedComparisonPage({ params }: Params) {
  const comparison = await readShare((await params).token);
  if (!comparison) notFound();
  return (
    <main id="main" className="mx-auto max-w-screen-2xl space-y-4 px-4 py-6 sm:px-6">
      <PreviewTags tags={comparisonPreviewTags(comparison, { siteName: brand.name })} />
      <PublicComparison comparison={comparison} />
      <p className="text-sm">
        <Link
          href="/"
          className="rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400"
        >
          Make your own with {brand.name}
        </Link>
      </p>
    </main>
  );
}
