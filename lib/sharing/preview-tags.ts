// The link preview of a shared video (and of a shared comparison, at the end), as the <meta> tags the clients that
// unfurl links read:
// - Discord plays `og:video` inline when it is the file itself (not a page),
//   with `og:video:type`, `og:video:width` and `og:video:height`; `og:image` is its poster.
// - Slack shows `og:title`, `og:description`, `og:image` (and `og:site_name`).
// - X shows a player card: `twitter:card=player` framing `twitter:player`
//   (an https page it may frame) at `twitter:player:width`×`height`, with
//   `twitter:image` as its poster and `twitter:player:stream` the file.
// Sizes and type come from the stored copy, never from what the gateway said.
import { truncateTitle } from "@/lib/brand/page-metadata";
import type { SharedComparison } from "./shared-comparison";
import type { SharedVideo } from "./shared-video";

export type PreviewTag = { attribute: "property" | "name"; key: string; content: string };

/** A player's size when the copy's is unknown: 16:9, as most results are. */
const FALLBACK_SIZE = { width: 1280, height: 720 };

export function sharePreviewTitle(video: SharedVideo): string {
  return video.prompt ? truncateTitle(video.prompt) : `A video made with ${video.model.label}`;
}

export function sharePreviewDescription(video: SharedVideo, siteName: string): string {
  return `${video.model.label} · shared from ${siteName}`;
}

const og = (key: string, content: string): PreviewTag => ({ attribute: "property", key: `og:${key}`, content });
const tw = (key: string, content: string): PreviewTag => ({ attribute: "name", key: `twitter:${key}`, content });

export function sharePreviewTags(video: SharedVideo, { siteName }: { siteName: string }): PreviewTag[] {
  const title = sharePreviewTitle(video);
  const description = sharePreviewDescription(video, siteName);
  const size = video.video.width && video.video.height ? { width: video.video.width, height: video.video.height } : FALLBACK_SIZE;
  const secure = video.urls.video.startsWith("https:");
  return [
    og("type", "video.other"),
    og("site_name", siteName),
    og("title", title),
    og("description", description),
    og("url", video.urls.page),
    ...(video.video.hasStill ? [og("image", video.urls.still), og("image:type", "image/jpeg"), og("image:alt", title)] : []),
    og("video", video.urls.video),
    ...(secure ? [og("video:secure_url", video.urls.video)] : []),
    og("video:type", video.video.contentType),
    og("video:width", String(size.width)),
    og("video:height", String(size.height)),
    tw("card", "player"),
    tw("title", title),
    tw("description", description),
    ...(video.video.hasStill ? [tw("image", video.urls.still)] : []),
    tw("player", video.urls.embed),
    tw("player:width", String(size.width)),
    tw("player:height", String(size.height)),
    tw("player:stream", video.urls.video),
    tw("player:stream:content_type", video.video.contentType),
  ];
}

/**
 * A shared comparison's preview: a summary card with one still (the pick's,
 * else the first ready video's). No og:video: a client that plays one file
 * inline would show one model of several as if it were the comparison.
 */
export function comparisonPreviewTitle(comparison: SharedComparison): string {
  return comparison.prompt ? truncateTitle(comparison.prompt) : `${comparison.videos.length} models compared`;
}

export function comparisonPreviewDescription(comparison: SharedComparison, siteName: string): string {
  return `${comparison.videos.map((v) => v.model.label).join(", ")}: one prompt, side by side · shared from ${siteName}`;
}

export function comparisonPreviewTags(comparison: SharedComparison, { siteName }: { siteName: string }): PreviewTag[] {
  const title = comparisonPreviewTitle(comparison);
  const description = comparisonPreviewDescription(comparison, siteName);
  const image = comparison.urls.image;
  return [
    og("type", "website"),
    og("site_name", siteName),
    og("title", title),
    og("description", description),
    og("url", comparison.urls.page),
    ...(image ? [og("image", image), og("image:type", "image/jpeg"), og("image:alt", title)] : []),
    tw("card", image ? "summary_large_image" : "summary"),
    tw("title", title),
    tw("description", description),
    ...(image ? [tw("image", image)] : []),
  ];
}
