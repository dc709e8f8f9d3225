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
  retryAfterSeconds?: number;
  statusStatus?: number;
  latencyMs?: number;
  callback?: {
    mode?: "deliver" | "drop";
    delayMs?: number;
    duplicates?: number;
    shape?: "flat" | "envelope" | "resultJson";
    outOfOrder?: boolean;
    retries?: number;
    backoffMs?: number;
  };
};

export type SimulatedTask = { taskId: string; state: string; creditsConsumed: number; prompt: string; resultUrls: string[] };
export type GatewayRequest = { method: string; path: string; status: number; taskId?: string; prompt?: string };
export type CallbackAttempt = { taskId: string; copy: number; attempt: number; status: number | string };

export class SimulatorControl {
  constructor(readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
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
  settle(match: string) {
    return this.call<{ settled: number }>("POST", "/__control/settle", { match });
  }
  async credits(apiKey = "sim-dev-key"): Promise<number> {
    const response = await fetch(new URL("/api/credits", this.baseUrl), { headers: { Authorization: `Bearer ${apiKey}` } });
    return ((await response.json()) as { credits: number }).credits;
  }
}

export const uniqueMarker = (label: string) => `[${label}-${Math.random().toString(36).slice(2, 10)}]`;
