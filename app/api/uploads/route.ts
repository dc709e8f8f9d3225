// POST /api/uploads?model=<id>&field=<input>: the raw file as the body. It
// streams to storage (this path skips proxy.ts, so nothing buffers it whole),
// is checked from its bytes against that model field's limits, and answers
// 201 with what was read, or the error shape of every route.
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { AppError, errorResponse } from "@/lib/errors";
import { discardRest, receiveUpload } from "@/lib/media/receive-upload";
import { accessGateHeaders, passesAccessGate } from "@/lib/viewer/access-gate";
import { withViewer } from "@/lib/viewer/with-viewer";

export const POST = withViewer(async (request, _context, viewer) => {
  const body = request.body ? Readable.fromWeb(request.body as NodeReadableStream) : Readable.from([]);
  try {
    if (!passesAccessGate(request.headers.get("authorization"))) throw new AppError("unauthorized", "Authentication required.", undefined, accessGateHeaders());
    const query = new URL(request.url).searchParams;
    const declared = request.headers.get("content-length");
    const upload = await receiveUpload({
      ownerId: viewer.id,
      modelId: query.get("model"),
      fieldName: query.get("field"),
      body,
      declaredBytes: declared !== null && /^\d+$/.test(declared) ? Number(declared) : null,
    });
    return Response.json(upload, { status: 201 });
  } catch (error) {
    // A refusal may come before the body was read (too large, wrong field, quota).
    await discardRest(body);
    return errorResponse(error);
  }
});
