import { AppError } from "@/lib/errors";
import { getGenerationFresh } from "@/lib/generations/list-fresh";
import { jsonWithEtag } from "@/lib/http";
import { galleryScope, withViewer } from "@/lib/viewer/with-viewer";

export const GET = withViewer<{ params: Promise<{ id: string }> }>(async (request, { params }, viewer) => {
  const { id } = await params;
  const generation = await getGenerationFresh({ id, owner: galleryScope(viewer) });
  // Someone else's generation is "no such generation" too: its existence is not ours to tell.
  if (!generation) throw new AppError("not_found", "No such generation.");
  return jsonWithEtag(request, generation);
});
