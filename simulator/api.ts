// The gateway's API (docs/gateway-api.md §4) with the failure modes real gateways
// show: outages, latency, random 5xx, per-key throttling, scenario refusals.
import { timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { taskView } from "./gateway";
import { errorReply, methodNotAllowed, readJson, refusal, sleep, type Reply } from "./http";
import type { SimulatorState } from "./state";
import { isInvalid, validateGenerateRequest } from "./validate";

/** The answer to an API call, or null when the connection was cut instead. */
export async function handleApi(state: SimulatorState, req: http.IncomingMessage, pathname: string): Promise<Reply | null> {
  const { settings } = state;
  const outage = state.activeOutage();
  if (outage?.mode === "reset") return cut(req);
  if (outage) {
    const headers: Record<string, string> = Number.isFinite(outage.until) ? { "Retry-After": String(Math.max(1, Math.ceil((outage.until - Date.now()) / 1000))) } : {};
    return errorReply(outage.status, outage.status === 503 ? "maintenance" : "unavailable", "The gateway is down for maintenance.", {}, headers);
  }
  await delay(req, settings.SIMULATOR_LATENCY_MS + Math.random() * settings.SIMULATOR_LATENCY_JITTER_MS);

  const api = pathname.match(/^\/api\/(?:generate(?:\/([^/]+))?|credits)$/);
  if (!api) return errorReply(404, "not_found", `No route ${req.method} ${pathname}.`);
  const key = apiKeyOf(state, req.headers.authorization);
  if (!key) return errorReply(401, "unauthorized", "Missing or invalid API key.");
  const throttle = state.limiter.check(key);
  if (throttle && !throttle.ok) {
    return errorReply(429, "rate_limited", `Rate limit of ${throttle.limit} requests exceeded; retry in ${throttle.retryAfterSeconds}s.`, {}, {
      "Retry-After": String(throttle.retryAfterSeconds),
      "X-RateLimit-Limit": String(throttle.limit),
      "X-RateLimit-Remaining": "0",
    });
  }
  const rateHeaders: Record<string, string> = throttle ? { "X-RateLimit-Limit": String(throttle.limit), "X-RateLimit-Remaining": String(throttle.remaining) } : {};
  if (Math.random() < settings.SIMULATOR_ERROR_RATE) return refusal(503);

  const reply = await route(state, req, pathname, api[1]);
  return reply && { ...reply, headers: { ...rateHeaders, ...reply.headers } };
}

async function route(state: SimulatorState, req: http.IncomingMessage, pathname: string, taskId: string | undefined): Promise<Reply | null> {
  if (pathname === "/api/credits") {
    if (req.method !== "GET") return methodNotAllowed("GET");
    return { status: 200, body: { credits: state.gateway.balance, held: state.gateway.held } };
  }
  if (pathname === "/api/generate") {
    if (req.method !== "POST") return methodNotAllowed("POST");
    return submit(state, req);
  }
  if (req.method !== "GET") return methodNotAllowed("GET");
  const id = decodeURIComponent(taskId!);
  const task = state.gateway.get(id);
  if (!task) return errorReply(404, "task_not_found", `No task ${id.slice(0, 100)}.`);
  await delay(req, task.scenario?.latencyMs ?? 0);
  if (task.scenario?.statusStatus) return refusal(task.scenario.statusStatus, task.scenario.retryAfterSeconds);
  return { status: 200, body: taskView(task) };
}

async function submit(state: SimulatorState, req: http.IncomingMessage): Promise<Reply | null> {
  const request = validateGenerateRequest(await readJson(req));
  if (isInvalid(request)) return errorReply(request.status, request.code, request.message, request.field ? { field: request.field } : {});
  const scenario = state.scenarios.take(String(request.input.prompt));
  await delay(req, (scenario?.latencyMs ?? 0) + (scenario?.submitLatencyMs ?? 0));
  if (scenario?.submitDrop === "before") return cut(req);
  if (scenario?.submitStatus) return refusal(scenario.submitStatus, scenario.retryAfterSeconds);
  const result = state.gateway.submit({ ...request, scenario });
  if (!("taskId" in result)) return errorReply(result.status, result.code, result.message);
  if (scenario?.submitDrop === "after") return cut(req);
  await delay(req, scenario?.submitAnswerDelayMs ?? 0);
  return { status: 200, body: { taskId: result.taskId } };
}

/** Waits `ms` before answering, and adds it to the request's record (`delayedMs`), so tests read the latency applied rather than time it. */
async function delay(req: http.IncomingMessage, ms: number): Promise<void> {
  if (ms <= 0) return;
  (req as { delayedMs?: number }).delayedMs = ((req as { delayedMs?: number }).delayedMs ?? 0) + Math.round(ms);
  await sleep(ms);
}

/** Which of the account's keys the header carries; compared in constant time. */
function apiKeyOf(state: SimulatorState, header: string | undefined): string | null {
  const given = Buffer.from(header ?? "");
  let found: string | null = null;
  for (const key of state.keys) {
    const expected = Buffer.from(`Bearer ${key}`);
    if (given.length === expected.length && timingSafeEqual(given, expected)) found = key;
  }
  return found;
}

function cut(req: http.IncomingMessage): null {
  req.socket.destroy();
  return null;
}
