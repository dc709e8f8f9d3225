// Scenario control: how the simulator treats the tasks whose prompt contains a
// marker the test chose, so tests running side by side do not disturb each
// other. A scenario without a marker applies to every task.
import { z } from "zod";

export const callbackShapes = ["flat", "envelope", "resultJson"] as const;

export const scenarioSchema = z.strictObject({
  /** Applies to tasks whose prompt contains this text; omitted: all tasks. */
  match: z.string().min(1).max(200).optional(),
  /** How many submissions it applies to before it is used up; omitted: until reset. */
  times: z.number().int().min(1).optional(),
  outcome: z.enum(["success", "failure"]).optional(),
  failCode: z.string().max(100).optional(),
  failMsg: z.string().max(500).optional(),
  pendingMs: z.number().min(0).max(3_600_000).optional(),
  /** Refuse the submit itself with this status (402, 429, 500, 503…). */
  submitStatus: z.number().int().min(400).max(599).optional(),
  /**
   * Cut the submit's connection without an answer: "before" the task exists
   * (nothing happened), or "after" it was created (it runs, the client never
   * learns its taskId), as a timeout or a proxy reset does.
   */
  submitDrop: z.enum(["before", "after"]).optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  /** Answer the task's status calls with this status instead. */
  statusStatus: z.number().int().min(400).max(599).optional(),
  /** Added latency before answering any call about the task, in ms. */
  latencyMs: z.number().min(0).max(120_000).optional(),
  /** Added latency before the submit creates the task and answers, in ms; its status calls stay quick (a client that gave up still sees the task start). */
  submitLatencyMs: z.number().min(0).max(120_000).optional(),
  /** Hold the submit's answer this long after the task was created, in ms: a client that dies meanwhile never learns its taskId. */
  submitAnswerDelayMs: z.number().min(0).max(120_000).optional(),
  /** Result URL lifetime for this task's results instead of SIMULATOR_RESULT_TTL_MS. */
  resultTtlMs: z.number().min(0).optional(),
  /** How this task's result downloads behave (slow, failing, cut short, redirected, large). */
  media: z
    .strictObject({
      /** Delay before answering each download, in ms. */
      latencyMs: z.number().min(0).max(120_000).optional(),
      /** Pace the body to this many bytes per second. */
      bytesPerSecond: z.number().int().min(1).optional(),
      /** Answer downloads with this error status. */
      status: z.number().int().min(400).max(599).optional(),
      /** Announce the full length, send this many bytes, then cut the connection. */
      truncateAfterBytes: z.number().int().min(0).optional(),
      /** `status` and `truncateAfterBytes` apply to the first n downloads only; omitted: to all. */
      failTimes: z.number().int().min(1).optional(),
      /** Answer with a 302 to this URL; "self": to the same file on the simulator. */
      redirectTo: z.union([z.literal("self"), z.url({ protocol: /^https?$/ })]).optional(),
      /** Serve a file of this many bytes, generated on the fly, instead of a sample clip. */
      sizeBytes: z.number().int().min(1).max(8 * 1024 ** 3).optional(),
      /** Serve these bytes (text, e.g. a playlist) as the result instead of a clip, still as video/mp4: a hostile host's file. */
      body: z.string().min(1).max(64 * 1024).optional(),
    })
    .optional(),
  callback: z
    .strictObject({
      /** "drop": never sent; "deliver": sent even when SIMULATOR_CALLBACK_DROP_RATE would drop it. */
      mode: z.enum(["deliver", "drop"]).optional(),
      delayMs: z.number().min(0).max(3_600_000).optional(),
      duplicates: z.number().int().min(0).max(50).optional(),
      shape: z.enum(callbackShapes).optional(),
      /** Also send a stale PENDING event after the terminal one. */
      outOfOrder: z.boolean().optional(),
      retries: z.number().int().min(0).max(20).optional(),
      backoffMs: z.number().min(0).max(600_000).optional(),
      timeoutMs: z.number().min(1).max(120_000).optional(),
    })
    .optional(),
});

export type ScenarioInput = z.infer<typeof scenarioSchema>;
export type Scenario = ScenarioInput & { id: number; used: number };

export class ScenarioBook {
  private scenarios: Scenario[] = [];
  private nextId = 1;

  add(input: ScenarioInput): Scenario {
    const scenario = { ...input, id: this.nextId++, used: 0 };
    this.scenarios.unshift(scenario);
    return scenario;
  }

  /** The newest scenario matching the prompt; counts one use of it. */
  take(prompt: string): Scenario | undefined {
    const scenario = this.scenarios.find((s) => !s.match || prompt.includes(s.match));
    if (!scenario) return undefined;
    scenario.used++;
    if (scenario.times !== undefined && scenario.used >= scenario.times) {
      this.scenarios = this.scenarios.filter((s) => s !== scenario);
    }
    return scenario;
  }

  list(): Scenario[] {
    return [...this.scenarios];
  }

  clear(match?: string): void {
    this.scenarios = match ? this.scenarios.filter((s) => s.match !== match) : [];
  }
}
