// POST /api/uploads/finalize {token}: after the browser posted a file to the
// bucket, the app reads it back and checks it like any upload; 201 with what
// was read (200 if it was already finalized), or the error shape of every
// route, the posted object deleted.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { readJson } from "@/lib/http";
import { finalizeUpload } from "@/lib/uploads/direct-upload";
import { uploadClientOf } from "@/lib/uploads/upload-quota";
import { withViewer } from "@/lib/viewer/with-viewer";

const body = z.object({ token: z.string().min(1).max(1000) });

export const POST = withViewer(async (request, _context, viewer) => {
  const parsed = body.safeParse(await readJson(request));
  if (!parsed.success) throw new AppError("invalid_input", "Send {token} as /api/uploads/presign gave it.", z.flattenError(parsed.error).fieldErrors as Record<string, string[]>);
  const { upload, created } = await finalizeUpload({ ownerId: viewer.id, client: uploadClientOf(request.headers, viewer), token: parsed.data.token });
  return Response.json(upload, { status: created ? 201 : 200 });
});
