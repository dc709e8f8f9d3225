// The owner's public link of a generation: POST shares it (a new link every
// time, `{ showPrompt }` optional, default true) and answers the link; DELETE
// stops sharing (204, also when it was not shared). Someone else's video is a
// 404, exactly like a missing one.
import { AppError } from "@/lib/errors";
import { readShareRequest } from "@/lib/sharing/share-request";
import { shareVideo, stopSharing } from "@/lib/sharing/share-video";
import { withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

export const POST = withViewer<Context>(async (request, { params }, viewer) => {
  const { id } = await params;
  const { showPrompt } = await readShareRequest(request);
  const outcome = await shareVideo({ id, ownerId: viewer.id, showPrompt });
  if (outcome.status === "not_found") throw new AppError("not_found", "No such generation.");
  if (outcome.status === "not_shareable") throw new AppError("conflict", outcome.message);
  return Response.json(outcome.link, { status: 200 });
});

export const DELETE = withViewer<Context>(async (_request, { params }, viewer) => {
  if ((await stopSharing({ id: (await params).id, ownerId: viewer.id })) === "not_found") throw new AppError("not_found", "No such generation.");
  return new Response(null, { status: 204 });
});
