// A comparison: one prompt's videos side by side, each turning Ready as it
// lands. Its owner's alone: anyone else gets the 404 of a missing one.
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getBatch } from "@/lib/batches/queries";
import { pageMetadata, truncateTitle } from "@/lib/brand/page-metadata";
import { getViewer } from "@/lib/viewer/get-viewer";
import { ComparisonView } from "./_components/comparison-view";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const viewer = await getViewer();
  const batch = viewer ? await getBatch({ id: (await params).id, ownerId: viewer.id }) : null;
  if (!batch) return { title: "Comparison not found" };
  return pageMetadata({ title: `Compare: ${truncateTitle(batch.prompt)}`, description: `${batch.generations.length} models, one prompt, side by side.` });
}

export default async function ComparePage({ params }: Params) {
  const viewer = await getViewer();
  const batch = viewer ? await getBatch({ id: (await params).id, ownerId: viewer.id }) : null;
  if (!batch) notFound();
  return (
    <main id="main" className="mx-auto max-w-screen-2xl space-y-4 px-4 py-6 sm:px-6">
      <p className="text-sm">
        <Link href="/" className="font-medium text-brand-700 underline hover:no-underline dark:text-brand-400">
          ← Gallery
        </Link>
      </p>
      <ComparisonView initialBatch={batch} />
    </main>
  );
}
