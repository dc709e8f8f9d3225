// Request bodies, bounded before Next reads a byte of them. Next buffers the
// body of every request proxy.ts sees until the whole body has arrived (up to
// 10 MB by default), and Node waits 5 minutes for a slow one, so a route's own
// size check would come too late: a body declared too large is refused here
// from its headers, and a body that has not arrived whole within
// BODY_DEADLINE_MS is cut. Installed by instrumentation.ts; the routes keep
// their own checks (a chunked body declares no size).
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { MODELS } from "./models/catalog";

/** A gateway callback: a task, with room to spare. */
export const CALLBACK_MAX_BYTES = 64 * 1024;
/** A JSON request to the API (a submission). */
export const JSON_BODY_MAX_BYTES = 64 * 1024;
/** Anything else: server actions, whose own limit in Next is 1 MB. */
export const BODY_MAX_BYTES = 1024 * 1024;
/** The time a whole body may take to arrive: 64 KB at 6.4 KB/s, 1 MB at 100 KB/s. */
export const BODY_DEADLINE_MS = 10_000;

/** An uploaded model input: the largest any model's field takes (the route then applies the field's own). */
export const UPLOAD_MAX_BYTES = Math.max(0, ...MODELS.flatMap((m) => m.fields.flatMap((f) => ("limits" in f ? [f.limits.maxBytes] : []))));
/** An upload may take this long to arrive: 100 MB at ~170 KB/s. */
export const UPLOAD_DEADLINE_MS = 10 * 60_000;

/** The largest body each path takes. */
export function bodyLimitFor(pathname: string): number {
  if (pathname === "/api/webhooks/gateway") return CALLBACK_MAX_BYTES;
  if (pathname === "/api/generations") return JSON_BODY_MAX_BYTES;
  if (pathname === "/api/uploads") return UPLOAD_MAX_BYTES;
  return BODY_MAX_BYTES;
}

const bodyDeadlineFor = (pathname: string) => (pathname === "/api/uploads" ? UPLOAD_DEADLINE_MS : BODY_DEADLINE_MS);

/**
 * Answers the request itself, and true, when its declared body is over the
 * path's limit; otherwise arms the deadline on its body and returns false.
 * Either answer closes the connection, so the rest of the body is never read.
 */
export function guardRequestBody(request: IncomingMessage, response: ServerResponse): boolean {
  const declared = Number(request.headers["content-length"]);
  const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
  const limit = bodyLimitFor(pathname);
  const deadlineMs = bodyDeadlineFor(pathname);
  if (Number.isFinite(declared) && declared > limit) {
    refuse(response, 413, "payload_too_large", `The body is larger than ${limit} bytes.`);
    return true;
  }
  if (request.complete) return false;
  const deadline = setTimeout(() => {
    if (request.complete) return;
    if (response.headersSent) request.socket.destroy();
    else refuse(response, 408, "request_timeout", `The body did not arrive within ${deadlineMs / 1000} s.`);
  }, deadlineMs).unref();
  response.once("close", () => clearTimeout(deadline));
  return false;
}

function refuse(response: ServerResponse, status: number, code: string, message: string) {
  // `Connection: close` makes Node end the socket once this is sent, instead of reading the rest.
  response.writeHead(status, { "Content-Type": "application/json", Connection: "close" });
  response.end(JSON.stringify({ error: { code, message } }));
}

const INSTALLED = Symbol.for("framehook.bodyGuard");

/** Guards every request of every HTTP server in this process; Next offers no hook into its server, so the prototype's emit is wrapped, once. */
export function installBodyGuard(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request" && guardRequestBody(args[0] as IncomingMessage, args[1] as ServerResponse)) return true;
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}
