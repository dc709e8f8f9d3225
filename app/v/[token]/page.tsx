// A shared video's public page (/v/<token>): the video, its model and, if the
// owner left it on, the prompt. Nothing of who made it, their gallery or
// their credits. Read on every request (a link the owner stopped sharing is
// a 404 at once), kept out of search engines, and previewed where it is
// pasted (preview-tags.ts: Discord plays the file, X frames the player).
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { brand } from "@/lib/brand";
import { sharePreviewDescription, sharePreviewTags, sharePreviewTitle } from "@/lib/sharing/preview-tags";
import { findSharedVideo } from "@/lib/sharing/shared-video";
import { PreviewTags } from "@/app/_components/preview-tags";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ token: string }> };

// One read per request for the metadata and the page; nothing kept past it.
const readShare = cache((token: string) => findSharedVideo({ token }));

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const video = await readShare((await params).token);
  const robots = { index: false, follow: false };
  if (!video) return { title: "Video not found", robots };
  // The layout's site-wide preview is replaced by this video's (rendered by the page: PreviewTags).
  return { title: sharePreviewTitle(video), description: sharePreviewDescription(video, brand.name), robots, openGraph: null, twitter: null };
}

export default async function SharedVideoPage({ params }: Params) {
  const video = await readShare((await params).token);
  if (!video) notFound();
  const { width, height } = video.video;
  return (
    <main id="main" className="mx-auto max-w-4xl space-y-4 px-4 py-6 sm:px-6">
      <PreviewTags tags={sharePreviewTags(video, { siteName: brand.name })} />
      <div className="overflow-hidden rounded-2xl bg-black shadow-sm ring-1 ring-zinc-200 dark:ring-zinc-800">
        <video
          className="mx-auto block max-h-[75vh] w-full"
          style={width && height ? { aspectRatio: `${width} / ${height}` } : undefined}
          src={video.paths.video}
          poster={video.video.hasStill ? video.paths.still : undefined}
          controls
          playsInline
          preload="metadata"
          aria-label={video.prompt ? `Video: ${video.prompt.slice(0, 80)}` : `Video made with ${video.model.label}`}
        />
      </div>
      <div className="space-y-2">
        <h1 className="text-sm font-normal text-zinc-600 dark:text-zinc-400">
          Made with <span className="font-medium text-zinc-900 dark:text-zinc-100">{video.model.label}</span>
        </h1>
        {video.prompt ? <p className="text-base leading-relaxed break-words whitespace-pre-line text-zinc-900 dark:text-zinc-100">{video.prompt}</p> : null}
      </div>
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
