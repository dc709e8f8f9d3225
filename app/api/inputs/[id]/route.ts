// GET /api/inputs/{id}?expires=…&sig=…: where the gateway fetches an uploaded
// input. No cookie: the signature is the permission, and it expires.
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http";
import { serveUpload } from "@/lib/uploads/serve-upload";
import { verifyInputLink } from "@/lib/uploads/upload-links";
import { findUploadForLink } from "@/lib/uploads/upload-store";

type Context = { params: Promise<{ id: string }> };

export const GET = route<Context>(async (request, { params }) => {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  const verdict = verifyInputLink({ id, expires: query.get("expires"), sig: query.get("sig") });
  if (verdict === "forged") throw new AppError("not_found", "No such input.");
  if (verdict === "expired") throw new AppError("gone", "This input link has expired.");
  const upload = await findUploadForLink({ id });
  if (!upload) throw new AppError("gone", "This input has been deleted.");
  return serveUpload({ upload, request });
});

export const HEAD = GET;
