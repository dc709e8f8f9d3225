// GET /api/uploads/gallery: the viewer's own Ready results with a stored
// copy, newest first, that the form's "From my gallery" picker offers as
// frames or reference videos.
import { listResultSources } from "@/lib/uploads/frame-upload";
import { withViewer } from "@/lib/viewer/with-viewer";

export const GET = withViewer(async (_request, _context, viewer) => {
  return Response.json({ items: await listResultSources({ ownerId: viewer.id }) });
});
