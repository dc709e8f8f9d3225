// Typed client of the gateway (docs/gateway-api.md §4). Every call has a timeout;
// responses are parsed with zod; refusals become a GatewayError with a kind.
import "server-only";
import { z } from "zod";
import { env } from "@/lib/env";
import { isRecord, safeJsonParse } from "@/lib/http/json";
import { traceHeaders, traced } from "@/lib/traces/tracing";
import { taskSchema, toTaskSnapshot, type TaskSnapshot } from "./task";

export type GatewayErrorKind =
  | "unauthorized"
  | "insufficient_credits"
  | "invalid_input"
  | "not_found"
  | "rate_limited"
  | "unavailable"
  | "timeout"
  | "bad_response";

export class GatewayError extends Error {
  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    readonly options: {
      status?: number;
      retryAfterMs?: number;
      /** False only when the request certainly never reached the gateway. */
      mayHaveReachedGateway: boolean;
    },
  ) {
    super(message);
    this.name = "GatewayError";
  }
}

const STATUS_KINDS: Record<number, GatewayErrorKind> = {
  400: "invalid_input",
  401: "unauthorized",
  403: "unauthorized",
  402: "insufficient_credits",
  404: "not_found",
  422: "invalid_input",
  429: "rate_limited",
};

/** `route`: the path with its ids as placeholders, which names the call's span ("POST /api/generate"). */
type Call = { method: "GET" | "POST"; path: string; route: string; body?: unknown; attributes?: Record<string, string> };

/** Each call is a client span of the current trace, and carries it to the gateway (`traceparent`). */
function call({ method, path, route, body, attributes }: Call): Promise<unknown> {
  const name = `gateway ${method} ${route}`;
  return traced(name, { kind: "client", attributes: { "http.request.method": method, "url.template": route, ...attributes } }, async (span) => {
    const result = await send({ method, path, body });
    span.set({ "http.response.status_code": result.status });
    if ("error" in result) throw result.error;
    return result.json;
  });
}

async function send({ method, path, body }: Omit<Call, "route">): Promise<{ status: number; json: unknown } | { status: number; error: GatewayError }> {
  let response: Response;
  try {
    response = await fetch(gatewayUrl(path), {
      method,
      headers: {
        ...traceHeaders(),
        Authorization: `Bearer ${env.GATEWAY_API_KEY}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(env.GATEWAY_TIMEOUT_MS),
      cache: "no-store",
    });
  } catch (error) {
    throw toNetworkError(error);
  }
  const text = await response.text().catch(() => "");
  const json = text ? safeJsonParse(text) : undefined;
  const status = response.status;
  if (!response.ok) {
    // A 404 means "no such task" only when the gateway itself says so, in
    // JSON: a proxy's HTML page or a wrong base path is an outage, not news.
    const foreign404 = status === 404 && !isRecord(json);
    const kind = foreign404 ? "unavailable" : (STATUS_KINDS[status] ?? "unavailable");
    const error = new GatewayError(kind, gatewayMessage(json) ?? `HTTP ${status}${foreign404 ? " (not a JSON answer)" : ""}`, {
      status,
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
      mayHaveReachedGateway: true,
    });
    return { status, error };
  }
  if (json === undefined) {
    return { status, error: new GatewayError("bad_response", "gateway answered with a body that is not JSON", { mayHaveReachedGateway: true }) };
  }
  return { status, json };
}

const submitResponseSchema = z.object({ taskId: z.string().min(1).max(200) });

export async function submitTask(request: {
  model: string;
  input: Record<string, unknown>;
  webhookUrl?: string;
}): Promise<{ taskId: string }> {
  const json = await call({
    method: "POST",
    path: "/api/generate",
    route: "/api/generate",
    body: { model: request.model, input: request.input, ...(request.webhookUrl ? { webhook_url: request.webhookUrl } : {}) },
  });
  const parsed = submitResponseSchema.safeParse(unwrapEnvelope(json));
  if (!parsed.success) throw new GatewayError("bad_response", "submit response has no taskId", { mayHaveReachedGateway: true });
  return parsed.data;
}

export async function getTask({ taskId }: { taskId: string }): Promise<TaskSnapshot> {
  const json = unwrapEnvelope(await call({ method: "GET", path: `/api/generate/${encodeURIComponent(taskId)}`, route: "/api/generate/{taskId}", attributes: { "framehook.task.id": taskId } }));
  // Spec §4: the answer carries "at least state"; a taskId, when present, must be ours.
  const named = isRecord(json) ? json.taskId : undefined;
  if (named != null && named !== taskId) throw new GatewayError("bad_response", "task response names another task", { mayHaveReachedGateway: true });
  const parsed = taskSchema.safeParse(isRecord(json) ? { ...json, taskId } : json);
  if (!parsed.success) throw new GatewayError("bad_response", "task response is not a task", { mayHaveReachedGateway: true });
  return toTaskSnapshot(parsed.data);
}

/** The balance; the spec does not show the response shape, so accept the common ones. */
export async function getCredits(): Promise<number> {
  const json = unwrapEnvelope(await call({ method: "GET", path: "/api/credits", route: "/api/credits" }));
  const value =
    typeof json === "number"
      ? json
      : isRecord(json)
        ? (json.credits ?? json.balance ?? json.remaining ?? json.credit)
        : undefined;
  const credits = z.coerce.number().finite().safeParse(value);
  if (!credits.success) throw new GatewayError("bad_response", "credits response has no balance", { mayHaveReachedGateway: true });
  return credits.data;
}

/** Paths are relative to the base URL, which may carry a path of its own ("https://host/v1"). */
function gatewayUrl(path: string): string {
  return `${env.GATEWAY_BASE_URL.replace(/\/+$/, "")}${path}`;
}

function unwrapEnvelope(json: unknown): unknown {
  return isRecord(json) && "data" in json && ("code" in json || "msg" in json) ? json.data : json;
}

function toNetworkError(error: unknown): GatewayError {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new GatewayError("timeout", "gateway did not answer in time", { mayHaveReachedGateway: true });
  }
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  const neverSent = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
  return new GatewayError("unavailable", `gateway unreachable (${code ?? "network error"})`, {
    mayHaveReachedGateway: !neverSent,
  });
}

function gatewayMessage(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  const error = isRecord(json.error) ? json.error : json;
  const message = error.message ?? error.msg;
  return typeof message === "string" ? message.slice(0, 300) : undefined;
}

function parseRetryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
