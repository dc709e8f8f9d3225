// Request bodies, bounded before Next reads a byte of them. Next buffers the
// body of every request proxy.ts sees until the whole body has arrived (up to
// 10 MB by default), and Node waits 5 minutes for a slow one, so a route's own
// size check would come too late: a body declared too large is refused here
// from its headers, and a body that has not arrived whole within
// BODY_DEADLINE_MS is cut. An upload's limit is its model field's, and with
// the access gate on, an upload that offers no password is refused here too
// (uploads skip proxy.ts, which applies the gate to everything else); one
// that offers a password goes to the route, which checks it and counts a
// wrong one before reading the body.
// Installed by instrumentation.ts; the routes keep their own checks (a chunked
// body declares no size).
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { findMediaField, findModel, MODELS } from "@/lib/models/catalog";
import { formatBytes } from "@/lib/models/media-limits";

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
  if (pathname === "/api/generations" || pathname === "/api/batches") return JSON_BODY_MAX_BYTES;
  if (pathname === "/api/uploads") return UPLOAD_MAX_BYTES;
  return BODY_MAX_BYTES;
}

/** The model field an upload's query names (?model=…&field=…), if it names one. */
export function uploadFieldOf(search: URLSearchParams) {
  const model = findModel(search.get("model") ?? "");
  const field = model && findMediaField(model, search.get("field") ?? "");
  return model && field ? { model, field } : undefined;
}

const bodyDeadlineFor = (pathname: string) => (pathname === "/api/uploads" ? UPLOAD_DEADLINE_MS : BODY_DEADLINE_MS);

/**
 * After a refusal, the rest of a body is read and dropped, up to this much
 * and for this long, before the connection closes: a client still sending
 * when the socket closes gets a reset (EPIPE) and never reads the answer
 * (Node's http client, browsers). Past either bound the socket is cut.
 */
export const REFUSED_BODY_DRAIN_BYTES = 128 * 1024 * 1024;
export const REFUSED_BODY_DRAIN_MS = 30_000;
/**
 * A client that stops sending while its refused body is drained (it declared
 * more than it sends, or waits for the answer) is cut after this long: only a
 * body that keeps coming holds the connection.
 */
export const REFUSED_BODY_IDLE_MS = 5_000;

/**
 * Answers the request itself, and true, when its declared body is over the
 * path's limit; otherwise arms the deadline on its body and returns false.
 * A refused body is drained (within bounds) and never stored; then the
 * connection closes.
 */
export function guardRequestBody(request: IncomingMessage, response: ServerResponse): boolean {
  const declared = Number(request.headers["content-length"]);
  const url = new URL(request.url ?? "/", "http://localhost");
  const pathname = url.pathname;
  const limit = bodyLimitFor(pathname);
  const deadlineMs = bodyDeadlineFor(pathname);
  if (Number.isFinite(declared) && declared > limit) {
    refuse(response, 413, "payload_too_large", `The body is larger than ${limit} bytes.`);
    return true;
  }
  // An upload over its field's limit: the words and field the route would use.
  const upload = pathname === "/api/uploads" && request.method === "POST" ? uploadFieldOf(url.searchParams) : undefined;
  if (upload && Number.isFinite(declared) && declared > upload.field.limits.maxBytes) {
    const message = `This file is ${formatBytes(declared)}; ${upload.model.label} takes up to ${formatBytes(upload.field.limits.maxBytes)}.`;
    refuse(response, 413, "payload_too_large", message, { [upload.field.name]: [message] });
    return true;
  }
  if (request.complete) return false;
  const deadline = setTimeout(() => {
    if (request.complete) return;
    if (response.headersSent) request.socket.destroy();
    else refuse(response, 408, "request_timeout", `The body did not arrive within ${deadlineMs / 1000} s.`, undefined, {}, { drain: false });
  }, deadlineMs).unref();
  response.once("close", () => clearTimeout(deadline));
  return false;
}

/** `drain: false`: close at once (a body too slow to arrive is not waited for again). */
function refuse(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  fields?: Record<string, string[]>,
  headers: Record<string, string> = {},
  { drain = true }: { drain?: boolean } = {},
) {
  const body = JSON.stringify({ error: { code, message, ...(fields ? { fields } : {}) } });
  // The whole answer goes out now (its length declared, so the client can read it while still sending), but the
  // response ends, and with `Connection: close` the socket closes, only once the rest of the body is drained.
  response.writeHead(status, { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Connection: "close" });
  response.write(body);
  const request = response.req;
  if (!drain || request.complete || request.readableEnded) {
    response.end();
    return;
  }
  let drained = 0;
  const finish = () => {
    clearTimeout(timer);
    clearTimeout(idle);
    if (!response.writableEnded) response.end();
  };
  const cut = () => {
    finish();
    request.socket.destroy();
  };
  const timer = setTimeout(cut, REFUSED_BODY_DRAIN_MS).unref();
  let idle = setTimeout(cut, REFUSED_BODY_IDLE_MS).unref();
  request.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) return cut();
    clearTimeout(idle);
    idle = setTimeout(cut, REFUSED_BODY_IDLE_MS).unref();
  });
  request.once("end", finish);
  request.once("error", cut);
  response.once("close", () => {
    clearTimeout(timer);
    clearTimeout(idle);
  });
  request.resume();
}

/** Whether an Authorization header offers the access gate a password (lib/viewer/access-gate.ts), and what a refusal sends. */
export type AccessGate = { passes: (authorization: string | null) => boolean; headers: () => Record<string, string> };

/**
 * With the gate loaded, an upload offering no password is refused before its
 * body is read; its request waits for the gate's first load (one module
 * import), every other request is emitted at once. A gate that cannot load
 * (say, a bad environment) leaves the refusal to the route.
 */
function gateUploads(loadGate: () => Promise<AccessGate>) {
  let gate: Promise<AccessGate | undefined> | undefined;
  return (request: IncomingMessage, response: ServerResponse, emit: () => void): boolean => {
    if (request.method !== "POST" || new URL(request.url ?? "/", "http://localhost").pathname !== "/api/uploads") return false;
    gate ??= loadGate().catch(() => undefined);
    void gate.then((loaded) => {
      if (loaded && !loaded.passes(request.headers.authorization ?? null)) refuse(response, 401, "unauthorized", "Authentication required.", undefined, loaded.headers());
      else emit();
    });
    return true;
  };
}

const INSTALLED = Symbol.for("framehook.bodyGuard");

/**
 * Guards every request of every HTTP server in this process; Next offers no
 * hook into its server, so the prototype's emit is wrapped, once. `loadGate`:
 * the access gate, for uploads (loaded on the first upload, not at start-up).
 */
export function installBodyGuard({ loadGate }: { loadGate?: () => Promise<AccessGate> } = {}): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const gated = loadGate ? gateUploads(loadGate) : () => false;
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event !== "request") return emit.call(this, event, ...args);
    const [request, response] = args as [IncomingMessage, ServerResponse];
    if (guardRequestBody(request, response)) return true;
    if (gated(request, response, () => emit.call(this, event, ...args))) return true;
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}
