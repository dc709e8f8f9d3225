// The /__control API that tests and demos drive: scenarios keyed by a marker,
// run-time settings, outages, keys, credits, and read-back of what happened.
import type http from "node:http";
import { z } from "zod";
import { parseRuntimePatch, runtimeKeys } from "./config";
import { taskView } from "./gateway";
import { errorReply, readJson, type Reply } from "./http";
import { scenarioSchema } from "./scenarios";
import type { SimulatorState } from "./state";

const outageSchema = z.strictObject({
  mode: z.enum(["status", "refuse", "reset"]).default("status"),
  status: z.number().int().min(400).max(599).default(503),
  ms: z.number().int().min(1).max(3_600_000).default(60_000),
});
const keySchema = z.strictObject({
  key: z.string().min(1).max(200),
  rateLimit: z.number().int().min(0).optional(),
  rateLimitWindowMs: z.number().min(1).optional(),
});
const creditsSchema = z.strictObject({ credits: z.number().finite().min(0) });
const resetSchema = z.strictObject({ credits: z.number().finite().min(0).optional() });
const settleSchema = z.strictObject({ match: z.string().optional() });

/** Refusing connections also takes this API down, so it is kept short. */
const MAX_REFUSE_MS = 60_000;

export async function handleControl(state: SimulatorState, req: http.IncomingMessage, pathname: string, url: URL): Promise<Reply> {
  const route = `${req.method} ${pathname}`;
  const match = url.searchParams.get("match");
  const ids = match ? state.tasksMatching(match) : null;
  switch (route) {
    case "POST /__control/reset": {
      const { data, error } = parse(resetSchema, (await readJson(req)) ?? {});
      if (error) return error;
      state.reset(data.credits);
      return { status: 200, body: { ok: true, credits: state.gateway.balance } };
    }
    case "POST /__control/scenarios": {
      const { data, error } = parse(scenarioSchema, await readJson(req));
      if (error) return error;
      return { status: 201, body: state.scenarios.add(data) };
    }
    case "GET /__control/scenarios":
      return { status: 200, body: state.scenarios.list() };
    case "DELETE /__control/scenarios":
      state.scenarios.clear(match ?? undefined);
      return { status: 200, body: { ok: true } };
    case "GET /__control/config":
      return { status: 200, body: runtimeSettings(state) };
    case "PATCH /__control/config": {
      const result = parseRuntimePatch(await readJson(req));
      if (!result.ok) return errorReply(422, "invalid_config", result.message);
      Object.assign(state.settings, result.patch);
      state.log(`config changed: ${JSON.stringify(result.patch)}`);
      return { status: 200, body: runtimeSettings(state) };
    }
    case "POST /__control/outage": {
      const { data, error } = parse(outageSchema, (await readJson(req)) ?? {});
      if (error) return error;
      const { mode, status, ms } = data;
      const until = Date.now() + ms;
      if (mode === "refuse") {
        if (ms > MAX_REFUSE_MS) return errorReply(422, "invalid_outage", `A refusing outage lasts at most ${MAX_REFUSE_MS} ms.`, { field: "ms" });
        // Idle keep-alive sockets go first, and this reply's own socket is not kept,
        // so that the caller's next request opens a connection and is refused.
        state.closeIdleConnections();
        const headers = { Connection: "close" };
        return { status: 200, body: { ok: true, mode, until: new Date(until).toISOString() }, headers, after: () => state.refuseConnections(ms) };
      }
      state.outage = mode === "reset" ? { mode, until } : { mode, status, until };
      state.log(`outage: ${mode === "reset" ? "cutting connections" : `answering ${status}`} for ${ms}ms`);
      return { status: 200, body: { ok: true, mode, until: new Date(until).toISOString() } };
    }
    case "DELETE /__control/outage":
      state.outage = null;
      return { status: 200, body: { ok: true } };
    case "POST /__control/keys": {
      const { data: key, error } = parse(keySchema, await readJson(req));
      if (error) return error;
      state.keys.add(key.key);
      if (key.rateLimit !== undefined || key.rateLimitWindowMs !== undefined) {
        state.limiter.setLimit(key.key, {
          limit: key.rateLimit ?? state.settings.SIMULATOR_RATE_LIMIT,
          windowMs: key.rateLimitWindowMs ?? state.settings.SIMULATOR_RATE_LIMIT_WINDOW_MS,
        });
      }
      return { status: 201, body: { ok: true } };
    }
    case "POST /__control/credits": {
      const { data, error } = parse(creditsSchema, await readJson(req));
      if (error) return error;
      state.gateway.balance = data.credits;
      return { status: 200, body: { credits: state.gateway.balance } };
    }
    case "GET /__control/requests":
      return { status: 200, body: match ? state.requests.filter((r) => r.prompt?.includes(match) || ids!.has(r.taskId ?? "")) : state.requests };
    case "GET /__control/callbacks":
      return { status: 200, body: ids ? state.callbacks.attempts.filter((a) => ids.has(a.taskId)) : state.callbacks.attempts };
    case "GET /__control/tasks": {
      const tasks = [...state.gateway.tasks.values()].filter((t) => !ids || ids.has(t.taskId));
      return { status: 200, body: tasks.map((t) => ({ ...taskView(t), webhookUrl: t.webhookUrl ? "(set)" : null, prompt: t.input.prompt })) };
    }
    case "GET /__control/inputs":
      return { status: 200, body: ids ? state.inputs.filter((f) => ids.has(f.taskId)) : state.inputs };
    case "GET /__control/media":
      return { status: 200, body: ids ? state.media.filter((m) => ids.has(m.taskId)) : state.media };
    case "POST /__control/expire": {
      // Expire matching results now, as a gateway's retention would.
      const { data, error } = parse(settleSchema, (await readJson(req)) ?? {});
      if (error) return error;
      const tasks = [...state.gateway.tasks.values()].filter((t) => t.state === "SUCCESS" && (!data.match || String(t.input.prompt).includes(data.match)));
      for (const task of tasks) task.expired = true;
      return { status: 200, body: { expired: tasks.length } };
    }
    case "POST /__control/settle": {
      // Finish every matching PENDING task now, as if its time had come.
      const { data, error } = parse(settleSchema, (await readJson(req)) ?? {});
      if (error) return error;
      const tasks = [...state.gateway.tasks.values()].filter((t) => t.state === "PENDING" && (!data.match || String(t.input.prompt).includes(data.match)));
      for (const task of tasks) state.gateway.settle(task);
      return { status: 200, body: { settled: tasks.length } };
    }
    default:
      return errorReply(404, "not_found", `No control route ${route}.`);
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): { data: T; error?: undefined } | { data?: undefined; error: Reply } {
  const result = schema.safeParse(body);
  if (result.success) return { data: result.data };
  const issue = result.error.issues[0]!;
  const error = errorReply(422, "invalid_control_request", `${issue.path.join(".") || "body"}: ${issue.message}`, { field: issue.path.join(".") || undefined });
  return { error };
}

function runtimeSettings(state: SimulatorState) {
  return Object.fromEntries(runtimeKeys.map((key) => [key, state.settings[key]]));
}
