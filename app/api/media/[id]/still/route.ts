// A stored copy's still image (a JPEG frame near 0.5 s, 640 px wide), for the
// viewer whose gallery shows it: the grid's tiles are these images, and a
// <video> exists only while something plays.
import { serveStoredStill } from "@/lib/copies/serve-media";
import { galleryScope, withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

const serve = withViewer<Context>(async (request, { params }, viewer) =>
  serveStoredStill({ id: (await params).id, request, owner: galleryScope(viewer) }),
);

export const GET = serve;
export const HEAD = serve;
