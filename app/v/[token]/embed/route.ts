// The player X's card frames (twitter:player): the shared video alone, with
// its own frame-ancestors (any site), nothing cached, nothing indexed.
import { brand } from "@/lib/brand";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http";
import { EMBED_POLICY, embedPageHtml } from "@/lib/sharing/embed-page";
import { findSharedVideo } from "@/lib/sharing/shared-video";

type Context = { params: Promise<{ token: string }> };

export const GET = route<Context>(async (_request, { params }) => {
  const video = await findSharedVideo({ token: (await params).token });
  if (!video) throw new AppError("not_found", "No such shared video.");
  return new Response(embedPageHtml(video, { siteName: brand.name }), {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": EMBED_POLICY,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-store",
    },
  });
});
