// The gateway's callback: POST only; every other method is 405 with `Allow: POST`.
import { CALLBACK_MAX_BYTES } from "@/lib/http/body-guard";
import { methodNotAllowed, route, readBody } from "@/lib/http";
import { receiveCallback } from "@/lib/generations/receive-callback";

export const POST = route(async (request) => {
  const body = await readBody(request, CALLBACK_MAX_BYTES);
  const token = new URL(request.url).searchParams.get("token");
  const { outcome } = await receiveCallback({ token, body, contentType: request.headers.get("content-type") });
  // Duplicates and late events are answered 2xx too: they were recorded, and a
  // non-2xx would only make the gateway send them again.
  return Response.json({ ok: true, outcome });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
// Next would answer OPTIONS itself (204 with Allow); the callback URL serves POST and nothing else.
export const OPTIONS = methodNotAllowed("POST");
