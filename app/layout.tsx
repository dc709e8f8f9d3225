import { SiteHeader } from "./_components/site-header";
import { env } from "@/lib/env";
import { siteMetadata, siteViewport } from "@/lib/brand/page-metadata";
import "./globals.css";

// Titles, icons, manifest and link preview: lib/brand/index.ts, through lib/brand/page-metadata.ts.
export const metadata = siteMetadata({ baseUrl: env.PUBLIC_BASE_URL });
export const viewport = siteViewport;

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-dvh font-sans">
        <a
          href="#main"
          className="sr-only rounded-lg bg-white px-3 py-2 text-sm font-medium shadow focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-10 dark:bg-zinc-900"
        >
          Skip to content
        </a>
        <SiteHeader />
        {children}
      </body>
    </html>
  );
}
