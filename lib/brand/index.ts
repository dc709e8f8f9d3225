// Everything that names or colours the product, in one place. A fork edits
// this file, runs `npm run brand` to redraw public/ from it, and is renamed and
// re-themed: the header, titles, link previews, icons, manifest, Tailwind's
// `brand-*` colours and the page background all read from here.

export const brand = {
  name: "Framehook",
  /** The header's wordmark: the name in two parts, the second in the brand colour. */
  wordmark: ["Frame", "hook"],
  /** Under 12 characters: the label under a home-screen icon. */
  shortName: "Framehook",
  tagline: "Prompts in, videos out",
  description: "Type a prompt, pick a model, watch your videos arrive.",
  colors: {
    /** Tailwind's `brand-*` scale: buttons, links, focus rings, the icon's tile. */
    brand: {
      50: "#eef2ff",
      100: "#e0e7ff",
      400: "#818cf8",
      500: "#6366f1",
      600: "#4f46e5",
      700: "#4338ca",
    },
    /** Page backgrounds (Tailwind's `page-light` / `page-dark`), also the browser's theme colour. */
    pageLight: "#fafafa",
    pageDark: "#09090b",
    /** The mark drawn on the icon's tile. */
    onBrand: "#ffffff",
  },
  /**
   * Served from public/ (drawn by `npm run brand`). favicon.ico,
   * apple-touch-icon.png and manifest.webmanifest stay at the root, where
   * browsers and crawlers also ask for them unprompted; the rest is under
   * public/brand/. proxy.ts lets exactly these through APP_PASSWORD.
   */
  assets: {
    favicon: "/favicon.ico",
    iconSvg: "/brand/icon.svg",
    appleTouchIcon: "/apple-touch-icon.png",
    manifest: "/manifest.webmanifest",
    icon192: "/brand/icon-192.png",
    icon512: "/brand/icon-512.png",
    iconMaskable: "/brand/icon-maskable-512.png",
  },
  /** The link-preview image (Open Graph and Twitter), 1200×630 as the platforms recommend. */
  previewImage: {
    url: "/brand/preview.png",
    width: 1200,
    height: 630,
    alt: "Framehook: prompts in, videos out",
  },
} as const;

export type Brand = typeof brand;
