// Small HTTP helpers shared by the simulator's routes: JSON replies, body
// reading, and the error bodies every refusal uses ({code, message}).
import type http from "node:http";

export type Reply = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Runs once the reply has been sent (e.g. to stop listening after saying so). */
  after?: () => void;
};

const MAX_BODY_BYTES = 1024 * 1024;

export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function errorReply(status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): Reply {
  return { status, body: { code, message, ...extra }, headers };
}

/** Reads and parses a JSON body (≤ 1 MB); an empty body is `undefined`. */
export async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // An oversized body is read to its end (and dropped) so that the client, still
  // sending, receives the 413 instead of a reset connection.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
    else if (size > 16 * MAX_BODY_BYTES) req.socket?.destroy();
  }
  if (size > MAX_BODY_BYTES) throw new BodyError(413, "payload_too_large", "Body larger than 1 MB.");
  if (size === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    (req as { parsedBody?: unknown }).parsedBody = parsed;
    return parsed;
  } catch {
    throw new BodyError(400, "bad_request", "Body is not valid JSON.");
  }
}

export function methodNotAllowed(allow: string): Reply {
  return errorReply(405, "method_not_allowed", `Use ${allow}.`, {}, { Allow: allow });
}

/** A forced refusal (scenario or outage) with the body and Retry-After a real gateway would send. */
export function refusal(status: number, retryAfterSeconds?: number): Reply {
  const messages: Record<number, [string, string]> = {
    402: ["insufficient_credits", "Insufficient credits."],
    429: ["rate_limited", "Too many requests."],
    500: ["internal_error", "Internal server error."],
    502: ["bad_gateway", "Upstream provider error."],
    503: ["unavailable", "Service temporarily unavailable."],
    504: ["upstream_timeout", "Upstream provider timed out."],
  };
  const [code, message] = messages[status] ?? ["error", `Simulated error ${status}.`];
  const retryAfter = retryAfterSeconds ?? (status === 429 || status === 503 ? 1 : undefined);
  return errorReply(status, code, message, {}, retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) });
}

export const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
