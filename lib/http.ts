// The preamble every JSON route shares: errors become `{error}` responses with
// the right status, and bodies are read with a size limit before parsing.
import { createHash } from "node:crypto";
import { JSON_BODY_MAX_BYTES } from "@/lib/http/body-guard";
import { AppError, errorResponse } from "@/lib/errors";

type Handler<C> = (request: Request, context: C) => Promise<Response>;

export function route<C>(handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Reads the raw body once, refusing bodies over `maxBytes` (413). */
export async function readBody(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  // Without a Content-Length (chunked), stop reading as soon as the limit is passed.
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader!.read()) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader!.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk.value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

export async function readJson(request: Request, maxBytes = JSON_BODY_MAX_BYTES): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) {
    throw new AppError("unsupported_media_type", "Send a JSON body with Content-Type: application/json.");
  }
  const text = await readBody(request, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "The body is not valid JSON.");
  }
}

const tooLarge = (maxBytes: number) => new AppError("payload_too_large", `The body is larger than ${maxBytes} bytes.`);

/** For routes that must name their methods in `Allow` (Next's own 405 does not). */
export function methodNotAllowed(allow: string) {
  return async () =>
    Response.json(
      { error: { code: "method_not_allowed", message: `Use ${allow}.` } },
      { status: 405, headers: { Allow: allow } },
    );
}

/**
 * JSON with an ETag: a poll that finds nothing changed gets a bodiless 304.
 * `no-cache` makes the browser revalidate every time, so SWR's polls cost a
 * few hundred bytes while nothing moves.
 */
export function jsonWithEtag(request: Request, body: unknown): Response {
  const text = JSON.stringify(body);
  // updatedAt moves with bookkeeping (poll leases, "last heard"), not only with
  // what a user sees, so it is left out of the version; a 304 may carry an
  // older updatedAt, never an older state, result or charge.
  const seen = JSON.stringify(body, (key, value) => (key === "updatedAt" ? undefined : value));
  const etag = `W/"${createHash("sha1").update(seen).digest("base64url")}"`;
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  const known = request.headers.get("if-none-match");
  if (known && known.split(/\s*,\s*/).includes(etag)) return new Response(null, { status: 304, headers });
  return new Response(text, { headers: { ...headers, "Content-Type": "application/json" } });
}
