// Callbacks as real gateways send them: at least once, retried with backoff on
// a non-2xx answer or a timeout, optionally duplicated, delayed, dropped or
// followed by a stale event, in one of several body shapes.
import type { SimulatorConfig } from "./config";
import { taskView, type Task } from "./gateway";
import type { callbackShapes } from "./scenarios";

type Shape = (typeof callbackShapes)[number];
export type CallbackAttempt = { taskId: string; copy: number; attempt: number; status: number | string; at: number };

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
    if (options?.mode === "drop") {
      this.log(`callback ${task.taskId} dropped by scenario`);
      return;
    }
    const copies = 1 + (options?.duplicates ?? this.config.SIMULATOR_CALLBACK_DUPLICATES);
    const shape = options?.shape ?? this.config.SIMULATOR_CALLBACK_SHAPE;
    const body = JSON.stringify(shapeBody(taskView(task), shape));
    const delay = options?.delayMs ?? 0;
    for (let copy = 1; copy <= copies; copy++) this.later(delay, () => this.deliver(task, body, copy, 1));
    if (options?.outOfOrder) {
      const stale = JSON.stringify(shapeBody({ ...taskView(task), state: "PENDING", resultUrls: [], creditsConsumed: 0, progress: 50 }, shape));
      this.later(delay + 50, () => this.deliver(task, stale, copies + 1, 1));
    }
  }

  private async deliver(task: Task, body: string, copy: number, attempt: number): Promise<void> {
    const generation = this.generation;
    const retries = task.scenario?.callback?.retries ?? this.config.SIMULATOR_CALLBACK_RETRIES;
    const backoff = task.scenario?.callback?.backoffMs ?? this.config.SIMULATOR_CALLBACK_BACKOFF_MS;
    let status: number | string;
    try {
      const response = await fetch(task.webhookUrl!, {
        method: "POST",
        headers: { "Content-Type": "application/json", "User-Agent": "framehook-simulator" },
        body,
        signal: AbortSignal.timeout(this.config.SIMULATOR_CALLBACK_TIMEOUT_MS),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      status = error instanceof Error && error.name === "TimeoutError" ? "timeout" : "connection error";
    }
    if (generation !== this.generation) return; // reset since: forget it
    this.attempts.push({ taskId: task.taskId, copy, attempt, status, at: Date.now() });
    const ok = typeof status === "number" && status >= 200 && status < 300;
    this.log(`callback ${task.taskId} ${task.state} copy ${copy} attempt ${attempt} → ${status}`);
    if (!ok && attempt <= retries) {
      this.later(backoff * 2 ** (attempt - 1), () => this.deliver(task, body, copy, attempt + 1));
    }
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
