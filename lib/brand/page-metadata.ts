// The <head> of every page, built from lib/brand/index.ts: the site-wide metadata of
// the root layout, and each page's title and description, carried into its
// link preview. Next merges a page's `openGraph` over the layout's field by
// field at the top level only, so a page that set its own title there would
// drop the preview image: pages go through `pageMetadata` instead.
import type { Metadata, Viewport } from "next";
import { brand } from "@/lib/brand";

const previewImages = [{ ...brand.previewImage }];

/** The layout's metadata. `baseUrl` makes the preview image's address absolute, as crawlers need. */
export function siteMetadata({ baseUrl }: { baseUrl: string }): Metadata {
  const { openGraph, twitter } = pageMetadata({ title: brand.name, description: brand.description });
  return {
    metadataBase: new URL(baseUrl),
    applicationName: brand.name,
    title: { default: brand.name, template: `%s · ${brand.name}` },
    description: brand.description,
    manifest: brand.assets.manifest,
    icons: {
      icon: [
        { url: brand.assets.favicon, sizes: "16x16 32x32 48x48" },
        { url: brand.assets.iconSvg, type: "image/svg+xml" },
      ],
      apple: [{ url: brand.assets.appleTouchIcon, sizes: "180x180", type: "image/png" }],
    },
    openGraph,
    twitter,
  };
}

export const siteViewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: brand.colors.pageLight },
    { media: "(prefers-color-scheme: dark)", color: brand.colors.pageDark },
  ],
};

/**
 * A page's title (the layout appends " · <name>" unless `absolute`) and
 * description, for the tab and for its link preview.
 */
export function pageMetadata({ title, description, absolute = false }: { title: string; description: string; absolute?: boolean }): Metadata {
  const fullTitle = absolute || title === brand.name ? title : `${title} · ${brand.name}`;
  return {
    title: absolute ? { absolute: title } : title,
    description,
    openGraph: { type: "website", siteName: brand.name, title: fullTitle, description, images: previewImages },
    twitter: { card: "summary_large_image", title: fullTitle, description, images: previewImages },
  };
}

/** At most `max` characters (not UTF-16 units: an emoji is never cut in half), on one line. */
export function truncateTitle(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  return `${chars.slice(0, max - 1).join("").trimEnd()}…`;
}
