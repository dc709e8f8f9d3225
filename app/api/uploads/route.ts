// POST /api/uploads?model=<id>&field=<input>: the raw file as the body. It
// streams to storage (this path skips proxy.ts, so nothing buffers it whole),
// is checked from its bytes against that model field's limits, and answers
// 201 with what was read, or the error shape of every route. A body declared
// too large, or sent without the access gate's password, is refused before
// it is read (lib/http/body-guard.ts); any other refusal closes the connection
// rather than read the rest.
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { AppError, errorResponse } from "@/lib/errors";
import { visitorAddress } from "@/lib/rate-limit";
import { discardRest, receiveUpload } from "@/lib/uploads/receive-upload";
import { hitUploadRateLimit, uploadClientOf } from "@/lib/uploads/upload-quota";
import { checkAccessGate } from "@/lib/viewer/access-gate";
import { assertMayCreate } from "@/lib/viewer/get-viewer";
import { withViewer } from "@/lib/viewer/with-viewer";

const receive = withViewer(async (request, _context, viewer) => {
  const body = request.body ? Readable.fromWeb(request.body as NodeReadableStream) : Readable.from([]);
  try {
    assertMayCreate(viewer);
    const client = uploadClientOf(request.headers, viewer);
    await hitUploadRateLimit({ client });
    const query = new URL(request.url).searchParams;
    const declared = request.headers.get("content-length");
    const upload = await receiveUpload({
      ownerId: viewer.id,
      client,
      modelId: query.get("model"),
      fieldName: query.get("field"),
      body,
      declaredBytes: declared !== null && /^\d+$/.test(declared) ? Number(declared) : null,
    });
    return Response.json(upload, { status: 201 });
  } catch (error) {
    // A refusal may come before the body was read (too large, wrong field, quota): a little of it
    // is read and dropped, so that a client still sending gets to read the answer.
    await discardRest(body);
    return errorResponse(error);
  }
});

/** The access gate before anything else, as proxy.ts applies it to every other route: a wrong password counts whoever sends it. */
async function refusedAtGate(request: Request): Promise<Response | null> {
  try {
    const gate = await checkAccessGate({ authorization: request.headers.get("authorization"), cookies: request.headers.get("cookie"), address: visitorAddress(request.headers) });
    if (gate.ok) return null;
    if (request.body) await discardRest(Readable.fromWeb(request.body as NodeReadableStream));
    return errorResponse(new AppError(gate.status === 429 ? "rate_limited" : "unauthorized", gate.message, undefined, gate.headers));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request, context: unknown): Promise<Response> {
  const response = (await refusedAtGate(request)) ?? (await receive(request, context));
  // A refusal (here, or before the handler ran: no visitor cookie) closes the connection after
  // the answer; otherwise Node would read the rest of the body to keep the connection open.
  if (!response.ok) response.headers.set("Connection", "close");
  return response;
}
