// GET /api/uploads/{id}: the owner's uploaded file (the form's preview).
// DELETE: the owner removes an upload no generation has used yet.
import { AppError } from "@/lib/errors";
import { serveUpload } from "@/lib/uploads/serve-upload";
import { deleteUnusedUpload } from "@/lib/uploads/upload-cleanup";
import { findOwnUpload } from "@/lib/uploads/upload-store";
import { withViewer } from "@/lib/viewer/with-viewer";

type Context = { params: Promise<{ id: string }> };

export const GET = withViewer<Context>(async (request, { params }, viewer) => {
  const upload = await findOwnUpload({ id: (await params).id, ownerId: viewer.id });
  if (!upload) throw new AppError("not_found", "No such upload.");
  return serveUpload({ upload, request });
});

export const HEAD = GET;

export const DELETE = withViewer<Context>(async (_request, { params }, viewer) => {
  const outcome = await deleteUnusedUpload({ id: (await params).id, ownerId: viewer.id });
  if (outcome === "not_found") throw new AppError("not_found", "No such upload.");
  if (outcome === "in_use") throw new AppError("conflict", "A generation uses this upload; it is deleted with the generation's inputs.");
  return new Response(null, { status: 204 });
});
