// The owner's public link of a generation: POST shares it (a new link every
// time, `{ showPrompt }` optional, default true) and answers the link; DELETE
// stops sharing (204, also when it was not shared). Someone else's video is a
// 404, exactly like a missing one.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { readJson } from "@/lib/http";
import { shareVideo, stopSharing } from "@/lib/sharing/share-video";
import { withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

const shareRequest = z.object({ showPrompt: z.boolean().default(true) }).strict();

export const POST = withViewer<Context>(async (request, { params }, viewer) => {
  const { id } = await params;
  // A body is optional: none shares with the prompt shown.
  const body = request.headers.get("content-length") === "0" || !request.body ? {} : await readJson(request);
  const parsed = shareRequest.safeParse(body);
  if (!parsed.success) throw new AppError("invalid_input", "Send { showPrompt: boolean } or no body.", z.flattenError(parsed.error).fieldErrors as Record<string, string[]>);
  const outcome = await shareVideo({ id, ownerId: viewer.id, showPrompt: parsed.data.showPrompt });
  if (outcome.status === "not_found") throw new AppError("not_found", "No such generation.");
  if (outcome.status === "not_shareable") throw new AppError("conflict", outcome.message);
  return Response.json(outcome.link, { status: 200 });
});

export const DELETE = withViewer<Context>(async (_request, { params }, viewer) => {
  if ((await stopSharing({ id: (await params).id, ownerId: viewer.id })) === "not_found") throw new AppError("not_found", "No such generation.");
  return new Response(null, { status: 204 });
});
