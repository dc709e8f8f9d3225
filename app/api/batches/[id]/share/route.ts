// The owner's public link of a comparison, as a video's: POST shares it (a
// new link every time, `{ showPrompt }` optional, default true) and answers
// the link; DELETE stops sharing (204, also when it was not shared). Someone
// else's comparison is a 404, exactly like a missing one.
import { AppError } from "@/lib/errors";
import { shareComparison, stopSharingComparison } from "@/lib/sharing/share-comparison";
import { readShareRequest } from "@/lib/sharing/share-request";
import { withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

export const POST = withViewer<Context>(async (request, { params }, viewer) => {
  const { id } = await params;
  const { showPrompt } = await readShareRequest(request);
  const outcome = await shareComparison({ id, ownerId: viewer.id, showPrompt });
  if (outcome.status === "not_found") throw new AppError("not_found", "No such comparison.");
  if (outcome.status === "not_shareable") throw new AppError("conflict", outcome.message);
  return Response.json(outcome.link, { status: 200 });
});

export const DELETE = withViewer<Context>(async (_request, { params }, viewer) => {
  if ((await stopSharingComparison({ id: (await params).id, ownerId: viewer.id })) === "not_found") throw new AppError("not_found", "No such comparison.");
  return new Response(null, { status: 204 });
});
