// The simulated account: tasks, their lifecycle and the credits ledger.
// Credits are held at submit, charged on SUCCESS and released on FAILURE, so
// the balance never goes negative however many tasks run at once.
import { randomBytes } from "node:crypto";
import type { SimulatorConfig } from "./config";
import { fetchInputs, type InputFetch } from "./inputs";
import { costOf, DEFAULT_DURATION_SECONDS, SIMULATED_MODELS } from "./pricing";
import type { Scenario } from "./scenarios";

export type TaskState = "PENDING" | "SUCCESS" | "FAILURE";

export type Task = {
  taskId: string;
  model: string;
  input: Record<string, unknown>;
  webhookUrl: string | null;
  state: TaskState;
  cost: number;
  creditsConsumed: number;
  resultUrls: string[];
  /** The result file's name, chosen at submit (its clip is made meanwhile); served once the task succeeds. */
  resultName: string;
  failCode: string | null;
  failMsg: string | null;
  createdAt: number;
  completeAt: number;
  completedAt: number | null;
  scenario: Scenario | undefined;
  /** Set by POST /__control/expire: the result URLs answer 410 from now on. */
  expired?: boolean;
  /** Set by a reset: the task left the account with everything else, and never settles into the new one. */
  discarded?: boolean;
  /** Resolves once every input URL was fetched; `inputFailure` says why one could not be used. */
  inputsFetched: Promise<void>;
  inputsDone: boolean;
  /** When `inputsFetched` resolved: a task cannot have completed before its inputs were fetched. */
  inputsDoneAt: number | null;
  inputFailure: string | null;
};

export type SubmitRefusal = { status: number; code: string; message: string; retryAfterSeconds?: number };

export class SimulatedGateway {
  readonly tasks = new Map<string, Task>();
  balance: number;
  held = 0;
  private timers = new Set<NodeJS.Timeout>();

  constructor(
    private config: SimulatorConfig,
    private publicUrl: () => string,
    private onTerminal: (task: Task) => void,
    /** Names a new task's result file (simulator/clips.ts): by the model, aspect ratio and prompt. */
    private nameResult: (task: Task, sampleIndex: number) => string,
    private onInputFetched: (fetch: InputFetch) => void = () => {},
  ) {
    this.balance = config.SIMULATOR_START_CREDITS;
  }

  get available(): number {
    return round(this.balance - this.held);
  }

  submit(request: {
    model: string;
    input: Record<string, unknown>;
    webhookUrl: string | null;
    scenario: Scenario | undefined;
  }): Task | SubmitRefusal {
    const model = SIMULATED_MODELS[request.model]!;
    const duration = typeof request.input.duration === "number" ? request.input.duration : DEFAULT_DURATION_SECONDS;
    const cost = costOf(model, duration);
    if (cost > this.available) {
      return { status: 402, code: "insufficient_credits", message: `Insufficient credits: this task needs ${cost}, the account has ${this.available}.` };
    }
    const now = Date.now();
    const jitter = Math.random() * this.config.SIMULATOR_PENDING_JITTER_MS;
    const pendingMs = request.scenario?.pendingMs ?? this.config.SIMULATOR_PENDING_MS + jitter;
    const task: Task = {
      taskId: `task_${randomBytes(12).toString("hex")}`,
      model: request.model,
      input: request.input,
      webhookUrl: request.webhookUrl,
      state: "PENDING",
      cost,
      creditsConsumed: 0,
      resultUrls: [],
      resultName: "",
      failCode: null,
      failMsg: null,
      createdAt: now,
      completeAt: now + pendingMs,
      completedAt: null,
      scenario: request.scenario,
      inputsFetched: Promise.resolve(),
      inputsDone: false,
      inputsDoneAt: null,
      inputFailure: null,
    };
    task.resultName = this.nameResult(task, parseInt(task.taskId.slice(-2), 16));
    this.held = round(this.held + cost);
    this.tasks.set(task.taskId, task);
    // Like a real gateway, it fetches the inputs first; one it cannot use fails the task at once, at no charge.
    task.inputsFetched = fetchInputs(task.taskId, model, request.input).then(({ fetches, failure }) => {
      fetches.forEach((f) => this.onInputFetched(f));
      task.inputsDone = true;
      task.inputsDoneAt = Date.now();
      task.inputFailure = failure;
      if (failure) this.settle(task);
    });
    this.whenDue(task, pendingMs);
    return task;
  }

  /**
   * Settles `task` once it is due and its inputs are in. It completed when due,
   * however late the timer fired on a busy machine (as a GET after the due time
   * settles it), unless its inputs came later. A timer that fires before the
   * wall clock reaches the due time (Node's timers run on a monotonic clock, and
   * fire up to a millisecond early against Date.now) waits out the rest: a task
   * never completes before its due time.
   */
  private whenDue(task: Task, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const early = task.completeAt - Date.now();
      if (early > 0) return this.whenDue(task, early);
      void task.inputsFetched.then(() => this.settle(task, Math.max(task.completeAt, task.inputsDoneAt ?? Date.now())));
    }, delayMs);
    this.timers.add(timer);
  }

  /**
   * Moves a task to its terminal state, once. `at` is when it completed: its
   * due time when it ran its course (however late or early its timer fired),
   * now when it is settled ahead of time.
   */
  settle(task: Task, at = Date.now()): void {
    // Once per task: the timer, a GET and the control API may all arrive here.
    if (task.state !== "PENDING" || task.discarded) return;
    const outcome = task.inputFailure ? "failure" : (task.scenario?.outcome ?? (Math.random() < this.config.SIMULATOR_FAILURE_RATE ? "failure" : "success"));
    this.held = round(this.held - task.cost);
    task.completedAt = at;
    if (outcome === "success") {
      task.state = "SUCCESS";
      task.creditsConsumed = task.cost;
      // Clamped: POST /__control/credits may have set the balance below what was held.
      this.balance = Math.max(0, round(this.balance - task.cost));
      task.resultUrls = [`${this.publicUrl()}/media/${task.taskId}/${task.resultName}`];
    } else {
      task.state = "FAILURE";
      task.failCode = task.inputFailure ? "input_fetch_failed" : (task.scenario?.failCode ?? "generation_failed");
      task.failMsg = task.inputFailure ?? task.scenario?.failMsg ?? "The model could not generate this video.";
    }
    this.onTerminal(task);
  }

  /** Settles a task whose time has come even if its timer has not fired yet. */
  get(taskId: string): Task | undefined {
    const task = this.tasks.get(taskId);
    if (task && task.state === "PENDING" && task.inputsDone && Date.now() >= task.completeAt) this.settle(task, task.completeAt);
    return task;
  }

  resultExpired(task: Task): boolean {
    const ttl = task.scenario?.resultTtlMs ?? this.config.SIMULATOR_RESULT_TTL_MS;
    return task.completedAt !== null && (task.expired === true || Date.now() - task.completedAt >= ttl);
  }

  reset(credits = this.config.SIMULATOR_START_CREDITS): void {
    // A task still fetching its inputs settles when they arrive, whatever its
    // timer: without this it would charge (or release) the new ledger.
    for (const task of this.tasks.values()) task.discarded = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.tasks.clear();
    this.balance = credits;
    this.held = 0;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }
}

/** The task as GET /api/generate/{taskId} shows it. */
export function taskView(task: Task): Record<string, unknown> {
  const progress =
    task.state === "PENDING"
      ? Math.min(99, Math.floor(((Date.now() - task.createdAt) / Math.max(1, task.completeAt - task.createdAt)) * 100))
      : 100;
  return {
    taskId: task.taskId,
    model: task.model,
    state: task.state,
    resultUrls: task.state === "SUCCESS" ? task.resultUrls : [],
    creditsConsumed: task.creditsConsumed,
    failCode: task.failCode,
    failMsg: task.failMsg,
    progress,
    param: { prompt: task.input.prompt },
    createTime: new Date(task.createdAt).toISOString(),
    completeTime: task.completedAt === null ? null : new Date(task.completedAt).toISOString(),
  };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
