// A result's stored copy (lib/copies): the file itself with byte ranges, or a
// redirect to the bucket, for the viewer whose gallery shows it. The gallery
// and detail page play and download this.
import { serveStoredMedia } from "@/lib/copies/serve-media";
import { galleryScope, withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

const serve = withViewer<Context>(async (request, { params }, viewer) =>
  serveStoredMedia({ id: (await params).id, request, owner: galleryScope(viewer) }),
);

export const GET = serve;
export const HEAD = serve;
