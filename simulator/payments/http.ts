// Small HTTP helpers of the payments simulator: replies, bodies, and
// Stripe's error shape ({error: {type, code, message, param}}).
import type http from "node:http";

export type Reply = { status: number; body?: unknown; html?: string; headers?: Record<string, string> };

const MAX_BODY_BYTES = 256 * 1024;

export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export async function readText(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RequestError(413, "payload_too_large", "Body larger than 256 KB.");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const text = await readText(req);
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError(400, "bad_request", "Body is not valid JSON.");
  }
}

export function stripeError(status: number, code: string, message: string, param?: string): Reply {
  const type = status === 401 ? "invalid_request_error" : status >= 500 ? "api_error" : "invalid_request_error";
  return { status, body: { error: { type, code, message, ...(param ? { param } : {}) } } };
}

export function redirect(location: string): Reply {
  return { status: 303, headers: { Location: location } };
}

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
