// The payments simulator (simulator/payments) for tests: a process of each
// test file's own, and a client for its /__control API.
import type { ChildProcess } from "node:child_process";
import { startServerProcess } from "./global-setup";

/** Starts `simulator/payments/main.ts` on a free port and resolves with its URL. */
export function startPaymentsSimulator(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  return startServerProcess("simulator/payments/main.ts", "payments simulator", { PAYMENTS_SIMULATOR_PORT: "0", PAYMENTS_SIMULATOR_LOG: "quiet", ...env });
}

export type DeliveryAttempt = { eventId: string; type: string; session: string | null; copy: number; attempt: number; status: number | string; retryInMs: number | null };
export type SimulatedEvent = { id: string; type: string; created: number; data: { object: Record<string, unknown> }; attempts: DeliveryAttempt[] };
export type DeliveryRule = { session?: string; type?: string; times?: number; duplicates?: number; delayMs?: number; drop?: boolean; hold?: boolean };

export class PaymentsControl {
  constructor(readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`payments simulator ${method} ${path} → ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** Act as the buyer (or the bank, for succeed/fail) on a session. */
  act(sessionId: string, action: "pay" | "decline" | "pay-later" | "succeed" | "fail") {
    return this.call<{ id: string; payment_intent: string | null }>("POST", `/__control/sessions/${sessionId}/${action}`);
  }
  refund(sessionId: string, amount?: number) {
    return this.call<{ id: string; amount: number }>("POST", `/__control/sessions/${sessionId}/refund`, amount === undefined ? {} : { amount });
  }
  /** The buyer's bank disputes the session's charge, then the dispute is won or lost. */
  dispute(sessionId: string, action: "dispute" | "dispute-won" | "dispute-lost") {
    return this.call<{ id: string; status: string }>("POST", `/__control/sessions/${sessionId}/${action}`);
  }
  rule(rule: DeliveryRule) {
    return this.call("POST", "/__control/rules", rule);
  }
  hold(hold = true) {
    return this.call("POST", "/__control/hold", { hold });
  }
  release(order: "emitted" | "reverse" = "emitted", session?: string) {
    return this.call<{ released: string[] }>("POST", "/__control/release", { order, ...(session ? { session } : {}) });
  }
  resend(eventId: string, copies: number) {
    return this.call("POST", `/__control/events/${eventId}/resend`, { copies });
  }
  events(filter: { session?: string; type?: string } = {}) {
    const query = new URLSearchParams(filter as Record<string, string>);
    return this.call<SimulatedEvent[]>("GET", `/__control/events?${query}`);
  }
  configure(settings: Record<string, string | number>) {
    return this.call("PATCH", "/__control/config", settings);
  }
  reset() {
    return this.call("POST", "/__control/reset");
  }

  /** The session's events of `type`, once each has `copies` attempts answered 2xx (the app has taken them). */
  async delivered(sessionId: string, type: string, copies = 1): Promise<SimulatedEvent[] | undefined> {
    const events = await this.events({ session: sessionId, type });
    const ok = (e: SimulatedEvent) => e.attempts.filter((a) => typeof a.status === "number" && a.status >= 200 && a.status < 300).length >= copies;
    return events.length > 0 && events.every(ok) ? events : undefined;
  }
}
