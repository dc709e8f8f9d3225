// The simulator's HTTP server: the gateway's API (gateway-spec.md §4), the
// result files it serves, and the /__control API that tests and demos use.
import { timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { CallbackSender } from "./callbacks";
import type { SimulatorConfig } from "./config";
import { SimulatedGateway, taskView } from "./gateway";
import { ScenarioBook, scenarioSchema } from "./scenarios";
import { isInvalid, validateGenerateRequest } from "./validate";

const MEDIA_DIR = path.join(import.meta.dirname, "media");
const MAX_BODY_BYTES = 1024 * 1024;

export type RequestRecord = { method: string; path: string; status: number; taskId?: string; prompt?: string; at: number };

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

export function createSimulator(config: SimulatorConfig) {
  const log = (line: string) => {
    if (config.SIMULATOR_LOG === "requests") console.log(`[simulator] ${line}`);
  };
  let publicUrl = `http://${config.SIMULATOR_HOST}:${config.SIMULATOR_PORT}`;
  const scenarios = new ScenarioBook();
  const callbacks = new CallbackSender(config, log);
  const gateway = new SimulatedGateway(config, () => publicUrl, (task) => callbacks.dispatch(task));
  const requests: RequestRecord[] = [];
  let outage: { status: number; until: number } | null = null;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<Reply | null> {
    const url = new URL(req.url ?? "/", publicUrl);
    const { pathname } = url;
    if (pathname.startsWith("/__control/")) return control(req, pathname, url);
    if (pathname.startsWith("/media/")) return serveMedia(req, res, pathname);

    if (outage && Date.now() < outage.until) {
      return { status: outage.status, body: { code: "unavailable", message: "The gateway is down for maintenance." }, headers: { "Retry-After": "1" } };
    }
    const api = pathname.match(/^\/api\/(generate(?:\/([^/]+))?|credits)$/);
    if (!api) return { status: 404, body: { code: "not_found", message: `No route ${req.method} ${pathname}.` } };
    if (!authorized(req.headers.authorization)) {
      return { status: 401, body: { code: "unauthorized", message: "Missing or invalid API key." } };
    }

    if (pathname === "/api/credits") {
      if (req.method !== "GET") return methodNotAllowed("GET");
      return { status: 200, body: { credits: gateway.balance, held: gateway.held } };
    }
    if (pathname === "/api/generate") {
      if (req.method !== "POST") return methodNotAllowed("POST");
      return submit(await readJson(req));
    }
    if (req.method !== "GET") return methodNotAllowed("GET");
    const taskId = decodeURIComponent(api[2]!);
    const task = gateway.get(taskId);
    if (!task) return { status: 404, body: { code: "task_not_found", message: `No task ${taskId.slice(0, 100)}.` } };
    await sleep(task.scenario?.latencyMs ?? 0);
    if (task.scenario?.statusStatus) return refusal(task.scenario.statusStatus, task.scenario.retryAfterSeconds);
    return { status: 200, body: taskView(task) };
  }

  async function submit(body: unknown): Promise<Reply> {
    const request = validateGenerateRequest(body);
    if (isInvalid(request)) return { status: request.status, body: { code: request.code, message: request.message, field: request.field } };
    const scenario = scenarios.take(String(request.input.prompt));
    await sleep(scenario?.latencyMs ?? 0);
    if (scenario?.submitStatus) return refusal(scenario.submitStatus, scenario.retryAfterSeconds);
    const result = gateway.submit({ ...request, scenario });
    if (!("taskId" in result)) return { status: result.status, body: { code: result.code, message: result.message } };
    return { status: 200, body: { taskId: result.taskId } };
  }

  async function control(req: http.IncomingMessage, pathname: string, url: URL): Promise<Reply> {
    const route = `${req.method} ${pathname}`;
    switch (route) {
      case "POST /__control/reset": {
        const body = (await readJson(req)) as { credits?: unknown } | undefined;
        gateway.reset(typeof body?.credits === "number" ? body.credits : undefined);
        callbacks.reset();
        scenarios.clear();
        requests.length = 0;
        outage = null;
        return { status: 200, body: { ok: true, credits: gateway.balance } };
      }
      case "POST /__control/scenarios": {
        const parsed = scenarioSchema.safeParse(await readJson(req));
        if (!parsed.success) return { status: 422, body: { code: "invalid_scenario", message: parsed.error.message } };
        return { status: 201, body: scenarios.add(parsed.data) };
      }
      case "GET /__control/scenarios":
        return { status: 200, body: scenarios.list() };
      case "DELETE /__control/scenarios":
        scenarios.clear(url.searchParams.get("match") ?? undefined);
        return { status: 200, body: { ok: true } };
      case "POST /__control/outage": {
        const body = (await readJson(req)) as { status?: number; ms?: number } | undefined;
        outage = { status: body?.status ?? 503, until: Date.now() + (body?.ms ?? 60_000) };
        return { status: 200, body: { ok: true, until: new Date(outage.until).toISOString() } };
      }
      case "DELETE /__control/outage":
        outage = null;
        return { status: 200, body: { ok: true } };
      case "POST /__control/credits": {
        const body = (await readJson(req)) as { credits?: unknown } | undefined;
        if (typeof body?.credits !== "number" || body.credits < 0) return { status: 422, body: { code: "invalid", message: "credits must be a number ≥ 0" } };
        gateway.balance = body.credits;
        return { status: 200, body: { credits: gateway.balance } };
      }
      case "GET /__control/requests": {
        const match = url.searchParams.get("match");
        return { status: 200, body: match ? requests.filter((r) => r.prompt?.includes(match) || tasksMatching(match).has(r.taskId ?? "")) : requests };
      }
      case "GET /__control/callbacks": {
        const match = url.searchParams.get("match");
        const ids = match ? tasksMatching(match) : null;
        return { status: 200, body: ids ? callbacks.attempts.filter((a) => ids.has(a.taskId)) : callbacks.attempts };
      }
      case "GET /__control/tasks": {
        const match = url.searchParams.get("match");
        const ids = match ? tasksMatching(match) : null;
        const tasks = [...gateway.tasks.values()].filter((t) => !ids || ids.has(t.taskId));
        return { status: 200, body: tasks.map((t) => ({ ...taskView(t), webhookUrl: t.webhookUrl ? "(set)" : null, prompt: t.input.prompt })) };
      }
      case "POST /__control/settle": {
        // Finish every matching PENDING task now, as if its time had come.
        const body = (await readJson(req)) as { match?: string } | undefined;
        const tasks = [...gateway.tasks.values()].filter((t) => t.state === "PENDING" && (!body?.match || String(t.input.prompt).includes(body.match)));
        for (const task of tasks) gateway.settle(task);
        return { status: 200, body: { settled: tasks.length } };
      }
      default:
        return { status: 404, body: { code: "not_found", message: `No control route ${route}.` } };
    }
  }

  function tasksMatching(match: string): Set<string> {
    return new Set([...gateway.tasks.values()].filter((t) => String(t.input.prompt).includes(match)).map((t) => t.taskId));
  }

  function serveMedia(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Reply | null {
    const match = pathname.match(/^\/media\/([^/]+)\/(sample-\d\.mp4)$/);
    const task = match ? gateway.tasks.get(match[1]!) : undefined;
    if (!match || !task || task.state !== "SUCCESS" || !task.resultUrls.some((u) => u.endsWith(pathname))) {
      return { status: 404, body: { code: "not_found", message: "No such result." } };
    }
    if (gateway.resultExpired(task)) return { status: 410, body: { code: "expired", message: "This result URL has expired." } };
    const file = path.join(MEDIA_DIR, match[2]!);
    const size = fs.statSync(file).size;
    const headers: Record<string, string | number> = {
      "Content-Type": "video/mp4",
      "Accept-Ranges": "bytes",
      "Cache-Control": "private, max-age=3600",
      "Access-Control-Allow-Origin": "*",
    };
    const range = req.headers.range?.match(/^bytes=(\d*)-(\d*)$/);
    let start = 0;
    let end = size - 1;
    if (range && (range[1] || range[2])) {
      start = range[1] ? Number(range[1]) : size - Number(range[2]);
      end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      if (start > end || start >= size) {
        res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
        return null;
      }
      res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": end - start + 1 });
    } else {
      res.writeHead(200, { ...headers, "Content-Length": size });
    }
    if (req.method === "HEAD") res.end();
    else fs.createReadStream(file, { start, end }).pipe(res);
    return null;
  }

  function authorized(header: string | undefined): boolean {
    const given = Buffer.from(header ?? "");
    const expected = Buffer.from(`Bearer ${config.SIMULATOR_API_KEY}`);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    let reply: Reply | null;
    try {
      reply = await handle(req, res);
    } catch (error) {
      reply = error instanceof BodyError ? { status: error.status, body: { code: error.code, message: error.message } } : { status: 500, body: { code: "internal", message: "Simulator error." } };
      if (!(error instanceof BodyError)) console.error("[simulator]", error);
    }
    const pathname = (req.url ?? "").split("?")[0]!;
    if (reply) {
      res.writeHead(reply.status, { "Content-Type": "application/json", ...reply.headers });
      res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
    }
    if (!pathname.startsWith("/__control/") && !pathname.startsWith("/media/")) {
      const record: RequestRecord = { method: req.method ?? "?", path: pathname, status: res.statusCode, at: started };
      const body = (req as { parsedBody?: unknown }).parsedBody as { input?: { prompt?: unknown } } | undefined;
      if (typeof body?.input?.prompt === "string") record.prompt = body.input.prompt;
      const taskId = pathname.match(/^\/api\/generate\/([^/]+)$/)?.[1];
      if (taskId) record.taskId = decodeURIComponent(taskId);
      requests.push(record);
      if (requests.length > 10_000) requests.shift();
    }
    log(`${req.method} ${pathname} ${res.statusCode} ${Date.now() - started}ms`);
  });

  return {
    server,
    gateway,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(config.SIMULATOR_PORT, config.SIMULATOR_HOST, resolve));
      const { port } = server.address() as AddressInfo;
      publicUrl = `http://${config.SIMULATOR_HOST}:${port}`;
      return publicUrl;
    },
    async close(): Promise<void> {
      gateway.stop();
      callbacks.reset();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, "payload_too_large", "Body larger than 1 MB.");
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    (req as { parsedBody?: unknown }).parsedBody = parsed;
    return parsed;
  } catch {
    throw new BodyError(400, "bad_request", "Body is not valid JSON.");
  }
}

function methodNotAllowed(allow: string): Reply {
  return { status: 405, body: { code: "method_not_allowed", message: `Use ${allow}.` }, headers: { Allow: allow } };
}

function refusal(status: number, retryAfterSeconds?: number): Reply {
  const messages: Record<number, [string, string]> = {
    402: ["insufficient_credits", "Insufficient credits."],
    429: ["rate_limited", "Too many requests."],
    503: ["unavailable", "Service temporarily unavailable."],
  };
  const [code, message] = messages[status] ?? ["error", `Simulated error ${status}.`];
  const retryAfter = retryAfterSeconds ?? (status === 429 || status === 503 ? 1 : undefined);
  return { status, body: { code, message }, headers: retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) } };
}

const sleep = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
