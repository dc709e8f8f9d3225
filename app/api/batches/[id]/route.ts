import { z } from "zod";
import { setBatchPick } from "@/lib/batches/batch-store";
import { getBatchFresh } from "@/lib/batches/queries";
import { AppError } from "@/lib/errors";
import { jsonWithEtag, readJson } from "@/lib/http";
import { withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

export const GET = withViewer<Context>(async (request, { params }, viewer) => {
  const { id } = await params;
  const batch = await getBatchFresh({ id, ownerId: viewer.id });
  // Someone else's comparison is "no such comparison" too.
  if (!batch) throw new AppError("not_found", "No such comparison.");
  return jsonWithEtag(request, batch);
});

const pickBody = z.object({ pickId: z.string().max(100).nullable() });

/** Marks (or clears, with null) the owner's pick among the comparison's videos. */
export const PATCH = withViewer<Context>(async (request, { params }, viewer) => {
  const { id } = await params;
  const body = pickBody.safeParse(await readJson(request));
  if (!body.success) throw new AppError("invalid_input", "Send {pickId}: one of this comparison's videos, or null.", z.flattenError(body.error).fieldErrors as Record<string, string[]>);
  if (!(await setBatchPick({ id, ownerId: viewer.id, pickId: body.data.pickId }))) {
    throw new AppError("not_found", "No such comparison, or that video is not one of its own.");
  }
  const batch = await getBatchFresh({ id, ownerId: viewer.id });
  if (!batch) throw new AppError("not_found", "No such comparison.");
  return Response.json(batch);
});
