// A client for the simulator's /__control API, shared by the integration tests
// and the Playwright fixtures.

export type Scenario = {
  match?: string;
  times?: number;
  outcome?: "success" | "failure";
  failCode?: string;
  failMsg?: string;
  pendingMs?: number;
  submitStatus?: number;
  /** Cut the submit's connection without answering, before or after the task is created. */
  submitDrop?: "before" | "after";
  retryAfterSeconds?: number;
  statusStatus?: number;
  latencyMs?: number;
  /** Latency of the submit alone: the task starts once it has passed, whether or not the client still waits. */
  submitLatencyMs?: number;
  /** The task is created at once, and the submit's answer held this long. */
  submitAnswerDelayMs?: number;
  /** Result URL lifetime for this scenario's tasks, instead of SIMULATOR_RESULT_TTL_MS. */
  resultTtlMs?: number;
  /** Result downloads: see simulator/README.md, "Scenarios". */
  media?: {
    latencyMs?: number;
    bytesPerSecond?: number;
    status?: number;
    truncateAfterBytes?: number;
    failTimes?: number;
    redirectTo?: string;
    sizeBytes?: number;
    body?: string;
  };
  callback?: {
    mode?: "deliver" | "drop";
    delayMs?: number;
    duplicates?: number;
    shape?: "flat" | "envelope" | "resultJson";
    outOfOrder?: boolean;
    retries?: number;
    backoffMs?: number;
    timeoutMs?: number;
  };
};

export type SimulatedTask = { taskId: string; state: string; creditsConsumed: number; prompt: string; resultUrls: string[] };
/** `delayedMs`: the latency the simulator added before answering. */
export type GatewayRequest = { method: string; path: string; status: number; taskId?: string; prompt?: string; traceparent?: string; delayedMs: number };
export type MediaDownload = { taskId: string; method: string; status: number; range: string | null; bytes: number; at: number };
/** `retryInMs`: when this copy's next attempt is due, or null when none will follow. */
export type InputFetch = { taskId: string; field: string; url: string; status: number | string; bytes: number; ok: boolean; message: string | null };

export type CallbackAttempt = { taskId: string; copy: number; attempt: number; status: number | string; state?: string; at?: number; retryInMs?: number | null };
/** Run-time settings, under their SIMULATOR_* environment names (see simulator/README.md). */
export type SimulatorSettings = Record<`SIMULATOR_${string}`, number | string | boolean>;

export class SimulatorControl {
  constructor(readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const send = () =>
      fetch(new URL(path, this.baseUrl), {
        method,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // A kept-alive connection the simulator closed as idle just as it was reused
    // ("other side closed"): control calls are idempotent, so one more try is safe.
    const response = await send().catch(() => send());
    if (!response.ok) throw new Error(`simulator ${method} ${path} → ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  reset(credits?: number) {
    return this.call("POST", "/__control/reset", credits === undefined ? {} : { credits });
  }
  scenario(scenario: Scenario) {
    return this.call("POST", "/__control/scenarios", scenario);
  }
  outage(status = 503, ms = 60_000) {
    return this.call("POST", "/__control/outage", { status, ms });
  }
  endOutage() {
    return this.call("DELETE", "/__control/outage");
  }
  setCredits(credits: number) {
    return this.call("POST", "/__control/credits", { credits });
  }
  tasks(match: string) {
    return this.call<SimulatedTask[]>("GET", `/__control/tasks?match=${encodeURIComponent(match)}`);
  }
  requests(match: string) {
    return this.call<GatewayRequest[]>("GET", `/__control/requests?match=${encodeURIComponent(match)}`);
  }
  callbacks(match: string) {
    return this.call<CallbackAttempt[]>("GET", `/__control/callbacks?match=${encodeURIComponent(match)}`);
  }
  /** Result downloads of the marker's tasks; status 0: the connection was cut. */
  media(match: string) {
    return this.call<MediaDownload[]>("GET", `/__control/media?match=${encodeURIComponent(match)}`);
  }
  /** Expires the marker's result URLs now (410 from then on). */
  /** The input files the simulated gateway fetched for tasks whose prompt contains `match`. */
  inputs(match?: string) {
    return this.call<InputFetch[]>("GET", `/__control/inputs${match ? `?match=${encodeURIComponent(match)}` : ""}`);
  }
  expire(match: string) {
    return this.call<{ expired: number }>("POST", "/__control/expire", { match });
  }
  settle(match: string) {
    return this.call<{ settled: number }>("POST", "/__control/settle", { match });
  }
  /** Stop accepting connections for `ms` (clients get ECONNREFUSED; this API too), then listen again. */
  refuseConnections(ms: number) {
    return this.call("POST", "/__control/outage", { mode: "refuse", ms });
  }
  /** For `ms`, API calls have their connection cut without an answer. */
  cutConnections(ms = 60_000) {
    return this.call("POST", "/__control/outage", { mode: "reset", ms });
  }
  config() {
    return this.call<SimulatorSettings>("GET", "/__control/config");
  }
  /** Changes run-time settings until the next reset, e.g. `{ SIMULATOR_LATENCY_MS: 500 }`. */
  configure(settings: SimulatorSettings) {
    return this.call<SimulatorSettings>("PATCH", "/__control/config", settings);
  }
  /** Adds an API key of the same account, optionally with its own rate limit. */
  addKey(key: string, limit?: { rateLimit?: number; rateLimitWindowMs?: number }) {
    return this.call("POST", "/__control/keys", { key, ...limit });
  }
  clearScenarios(match?: string) {
    return this.call("DELETE", `/__control/scenarios${match ? `?match=${encodeURIComponent(match)}` : ""}`);
  }
  async credits(apiKey = "sim-dev-key"): Promise<number> {
    const response = await fetch(new URL("/api/credits", this.baseUrl), { headers: { Authorization: `Bearer ${apiKey}` } });
    return ((await response.json()) as { credits: number }).credits;
  }
}

export const uniqueMarker = (label: string) => `[${label}-${Math.random().toString(36).slice(2, 10)}]`;
