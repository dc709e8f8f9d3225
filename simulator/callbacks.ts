// Callbacks as real gateways send them: at least once, retried with backoff on
// a non-2xx answer or a timeout, optionally duplicated, delayed, dropped or
// followed by a stale event, in one of several body shapes.
import type { SimulatorConfig } from "./config";
import { taskView, type Task } from "./gateway";
import type { callbackShapes } from "./scenarios";

type Shape = (typeof callbackShapes)[number];
/**
 * One POST to a webhook_url: `at` is when it started, `status` the HTTP
 * status, "timeout" or "connection error"; `retryInMs` when the next attempt
 * of this copy is due, or null when none will follow.
 */
export type CallbackAttempt = { taskId: string; state: string; copy: number; attempt: number; status: number | string; at: number; retryInMs: number | null };
type Delivery = { task: Task; retries: number; backoffMs: number; timeoutMs: number };

export class CallbackSender {
  readonly attempts: CallbackAttempt[] = [];
  private pending = new Set<NodeJS.Timeout>();
  private generation = 0;

  constructor(
    private config: SimulatorConfig,
    private log: (line: string) => void,
  ) {}

  dispatch(task: Task): void {
    if (!task.webhookUrl) return;
    const options = task.scenario?.callback;
    const dropped = options?.mode === "drop" || (options?.mode === undefined && Math.random() < this.config.SIMULATOR_CALLBACK_DROP_RATE);
    if (dropped) {
      this.log(`callback ${task.taskId} ${task.state} dropped (never sent)`);
      return;
    }
    const copies = 1 + (options?.duplicates ?? this.config.SIMULATOR_CALLBACK_DUPLICATES);
    const shape = options?.shape ?? this.config.SIMULATOR_CALLBACK_SHAPE;
    const body = JSON.stringify(shapeBody(taskView(task), shape));
    const delay = options?.delayMs ?? this.config.SIMULATOR_CALLBACK_DELAY_MS;
    const delivery: Delivery = {
      task,
      retries: options?.retries ?? this.config.SIMULATOR_CALLBACK_RETRIES,
      backoffMs: options?.backoffMs ?? this.config.SIMULATOR_CALLBACK_BACKOFF_MS,
      timeoutMs: options?.timeoutMs ?? this.config.SIMULATOR_CALLBACK_TIMEOUT_MS,
    };
    for (let copy = 1; copy <= copies; copy++) this.later(delay, () => this.deliver(delivery, task.state, body, copy, 1));
    if (options?.outOfOrder ?? this.config.SIMULATOR_CALLBACK_OUT_OF_ORDER) {
      // A stale "still running" event that arrives after the terminal one.
      const stale = JSON.stringify(shapeBody({ ...taskView(task), state: "PENDING", resultUrls: [], creditsConsumed: 0, progress: 50, completeTime: null }, shape));
      this.later(delay + 50, () => this.deliver(delivery, "PENDING", stale, copies + 1, 1));
    }
  }

  private async deliver(delivery: Delivery, state: string, body: string, copy: number, attempt: number): Promise<void> {
    const { task } = delivery;
    const generation = this.generation;
    const started = Date.now();
    let status: number | string;
    try {
      const response = await fetch(task.webhookUrl!, {
        method: "POST",
        headers: { "Content-Type": "application/json", "User-Agent": "framehook-simulator" },
        body,
        signal: AbortSignal.timeout(delivery.timeoutMs),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      status = error instanceof Error && error.name === "TimeoutError" ? "timeout" : "connection error";
    }
    if (generation !== this.generation) return; // reset since: forget it
    const ok = typeof status === "number" && status >= 200 && status < 300;
    const retry = !ok && attempt <= delivery.retries ? delivery.backoffMs * 2 ** (attempt - 1) : null;
    this.attempts.push({ taskId: task.taskId, state, copy, attempt, status, at: started, retryInMs: retry });
    if (this.attempts.length > 10_000) this.attempts.shift();
    const next = ok ? "" : retry === null ? ", giving up" : `, retry in ${retry}ms`;
    this.log(`callback ${task.taskId} ${state} copy ${copy} attempt ${attempt} → ${status} (${Date.now() - started}ms${next})`);
    if (retry !== null) this.later(retry, () => this.deliver(delivery, state, body, copy, attempt + 1));
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
  }

  reset(): void {
    this.generation++;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    this.attempts.length = 0;
  }
}

function shapeBody(task: Record<string, unknown>, shape: Shape): unknown {
  switch (shape) {
    case "flat":
      return task;
    case "envelope":
      return { code: 200, msg: "success", data: task };
    case "resultJson": {
      const { resultUrls, ...rest } = task;
      return { code: 200, msg: "success", data: { ...rest, resultJson: JSON.stringify({ resultUrls }) } };
    }
  }
}
