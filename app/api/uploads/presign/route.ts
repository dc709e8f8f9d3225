// POST /api/uploads/presign {model, field, size?}: how to send a file for
// that model field. With S3 storage, a form to post it straight to the bucket
// (its policy fixes the key and caps the size) and a ticket for
// /api/uploads/finalize; with local storage, the streaming route to use.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { readJson } from "@/lib/http";
import { startUpload } from "@/lib/uploads/direct-upload";
import { uploadClientOf } from "@/lib/uploads/upload-quota";
import { assertMayCreate } from "@/lib/viewer/get-viewer";
import { withViewer } from "@/lib/viewer/with-viewer";

const body = z.object({
  model: z.string().max(200),
  field: z.string().max(200),
  size: z.number().int().min(0).optional(),
});

export const POST = withViewer(async (request, _context, viewer) => {
  assertMayCreate(viewer);
  const parsed = body.safeParse(await readJson(request));
  if (!parsed.success) throw new AppError("invalid_input", "Send {model, field} and optionally the file's size in bytes.", z.flattenError(parsed.error).fieldErrors as Record<string, string[]>);
  const { model, field, size } = parsed.data;
  return Response.json(await startUpload({ ownerId: viewer.id, client: uploadClientOf(request.headers, viewer), modelId: model, fieldName: field, size }));
});
