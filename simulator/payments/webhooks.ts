// Events to the app's webhook endpoint as Stripe sends them: signed
// (`Stripe-Signature: t=…,v1=…`, an HMAC-SHA256 of `${t}.${payload}` under the
// endpoint's secret), at least once, retried with backoff on a non-2xx answer
// or a timeout, and on demand duplicated (copies sent at the same moment),
// delayed, dropped, or held and released in another order.
import { createHmac } from "node:crypto";
import type { RuntimeSettings } from "./config";
import type { StripeEvent } from "./store";

/** How to deliver the events a rule matches (by Checkout Session and/or event type); `times` uses it up. */
export type DeliveryRule = {
  session?: string;
  type?: string;
  times?: number;
  duplicates?: number;
  delayMs?: number;
  drop?: boolean;
  /** Keep the event until POST /__control/release. */
  hold?: boolean;
};

/** One POST of one copy of an event: `status` is the HTTP status, "timeout" or "connection error". */
export type DeliveryAttempt = {
  eventId: string;
  type: string;
  session: string | null;
  copy: number;
  attempt: number;
  status: number | string;
  at: number;
  retryInMs: number | null;
};

export function signPayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${signature}`;
}

export class WebhookSender {
  readonly attempts: DeliveryAttempt[] = [];
  readonly held: { event: StripeEvent; copies: number }[] = [];
  private rules: (DeliveryRule & { left: number })[] = [];
  private holdAll = false;
  private timers = new Set<NodeJS.Timeout>();
  private generation = 0;

  constructor(
    private readonly settings: RuntimeSettings,
    private readonly sessionOf: (event: StripeEvent) => string | null,
    private readonly log: (line: string) => void,
  ) {}

  addRule(rule: DeliveryRule): DeliveryRule {
    this.rules.push({ ...rule, left: rule.times ?? Infinity });
    return rule;
  }

  /** From now on every event is held (or, with false, sent again as it comes; what is held stays held). */
  setHoldAll(hold: boolean): void {
    this.holdAll = hold;
  }

  dispatch(event: StripeEvent): void {
    const rule = this.ruleFor(event);
    const copies = 1 + (rule?.duplicates ?? this.settings.PAYMENTS_SIMULATOR_DUPLICATES);
    if (rule?.drop) {
      this.log(`event ${event.id} ${event.type} dropped (never sent)`);
      this.record(event, 0, 0, "dropped", null);
      return;
    }
    if (rule?.hold || this.holdAll) {
      this.held.push({ event, copies });
      this.log(`event ${event.id} ${event.type} held`);
      return;
    }
    const delay = rule?.delayMs ?? this.settings.PAYMENTS_SIMULATOR_DELAY_MS;
    this.later(delay, () => this.sendCopies(event, copies));
  }

  /** Sends the held events (those of one session, or all), in the order they were emitted or the reverse. */
  release({ order = "emitted", session }: { order?: "emitted" | "reverse"; session?: string } = {}): string[] {
    const chosen = this.held.filter((h) => !session || this.sessionOf(h.event) === session);
    for (const h of chosen) this.held.splice(this.held.indexOf(h), 1);
    if (order === "reverse") chosen.reverse();
    // One after the other, each copy's first attempt answered before the next event leaves, so the order is the one the app sees.
    void (async () => {
      for (const h of chosen) await this.sendCopies(h.event, h.copies);
    })();
    return chosen.map((h) => h.event.id);
  }

  /** Sends an event again, `copies` times at once (as Stripe's "Resend" does, or a storm). */
  resend(event: StripeEvent, copies: number): Promise<void> {
    return this.sendCopies(event, copies);
  }

  reset(): void {
    this.generation++;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.attempts.length = 0;
    this.held.length = 0;
    this.rules = [];
    this.holdAll = false;
  }

  private ruleFor(event: StripeEvent) {
    const session = this.sessionOf(event);
    const rule = this.rules.find((r) => r.left > 0 && (!r.session || r.session === session) && (!r.type || r.type === event.type));
    if (rule) rule.left--;
    return rule;
  }

  private sendCopies(event: StripeEvent, copies: number): Promise<void> {
    const payload = JSON.stringify(event, null, 2);
    return Promise.all(Array.from({ length: copies }, (_, i) => this.deliver(event, payload, i + 1, 1))).then(() => undefined);
  }

  private async deliver(event: StripeEvent, payload: string, copy: number, attempt: number): Promise<void> {
    const url = this.settings.PAYMENTS_SIMULATOR_WEBHOOK_URL;
    if (!url) {
      this.record(event, copy, attempt, "no endpoint", null);
      return;
    }
    const generation = this.generation;
    const started = Date.now();
    let status: number | string;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
          "Stripe-Signature": signPayload(payload, this.settings.PAYMENTS_SIMULATOR_WEBHOOK_SECRET),
        },
        body: payload,
        signal: AbortSignal.timeout(this.settings.PAYMENTS_SIMULATOR_TIMEOUT_MS),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      status = error instanceof Error && error.name === "TimeoutError" ? "timeout" : "connection error";
    }
    if (generation !== this.generation) return;
    const ok = typeof status === "number" && status >= 200 && status < 300;
    const retry = !ok && attempt <= this.settings.PAYMENTS_SIMULATOR_RETRIES ? this.settings.PAYMENTS_SIMULATOR_BACKOFF_MS * 2 ** (attempt - 1) : null;
    this.record(event, copy, attempt, status, retry, started);
    const next = ok ? "" : retry === null ? ", giving up" : `, retry in ${retry}ms`;
    this.log(`event ${event.id} ${event.type} copy ${copy} attempt ${attempt} → ${status} (${Date.now() - started}ms${next})`);
    if (retry !== null) this.later(retry, () => void this.deliver(event, payload, copy, attempt + 1));
  }

  private record(event: StripeEvent, copy: number, attempt: number, status: number | string, retryInMs: number | null, at = Date.now()) {
    this.attempts.push({ eventId: event.id, type: event.type, session: this.sessionOf(event), copy, attempt, status, at, retryInMs });
    if (this.attempts.length > 10_000) this.attempts.shift();
  }

  private later(ms: number, fn: () => void): void {
    if (ms <= 0) return void queueMicrotask(fn);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }
}
