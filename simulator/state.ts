// Everything the simulated gateway knows, in one place: its settings (env
// defaults, changeable at run time), the account, scenarios, keys, throttling,
// outages, and the records tests read back through /__control.
import { CallbackSender } from "./callbacks";
import { createClipLibrary } from "./clips";
import type { SimulatorConfig } from "./config";
import { SimulatedGateway } from "./gateway";
import type { InputFetch } from "./inputs";
import type { MediaRecord } from "./media";
import { ScenarioBook } from "./scenarios";
import { RateLimiter } from "./throttle";

/** `delayedMs`: the latency the simulator added before answering (SIMULATOR_LATENCY_MS, a scenario's latencyMs). */
/** `traceparent`: the W3C trace context the caller sent, when it sent a well-formed one (traces on). */
export type RequestRecord = { method: string; path: string; status: number; taskId?: string; prompt?: string; traceparent?: string; at: number; delayedMs: number };

/** "status": API calls answer `status`; "reset": their connections are cut without an answer. */
export type Outage = { mode: "status"; status: number; until: number } | { mode: "reset"; until: number };

export type SimulatorState = ReturnType<typeof createState>;

export function createState(config: SimulatorConfig, publicUrl: () => string) {
  const initial = Object.freeze({ ...config });
  const log = (line: string) => {
    if (config.SIMULATOR_LOG === "requests") console.log(`[simulator] ${line}`);
  };
  const callbacks = new CallbackSender(config, log);
  const inputs: InputFetch[] = [];
  const clips = createClipLibrary({ mode: config.SIMULATOR_CLIPS, cacheDir: config.SIMULATOR_CLIP_CACHE_DIR, looks: config.SIMULATOR_CLIP_LOOKS });
  const state = {
    /** The live settings: `config` itself, mutated by PATCH /__control/config and restored by reset. */
    settings: config,
    initial,
    log,
    callbacks,
    /** The result files: real-size clips, or the committed samples. */
    clips,
    gateway: new SimulatedGateway(config, publicUrl, (task) => callbacks.dispatch(task), clips.resultFor, (fetch) => {
      inputs.push(fetch);
      if (inputs.length > 10_000) inputs.shift();
    }),
    scenarios: new ScenarioBook(),
    limiter: new RateLimiter(() => ({ limit: config.SIMULATOR_RATE_LIMIT, windowMs: config.SIMULATOR_RATE_LIMIT_WINDOW_MS })),
    keys: new Set([config.SIMULATOR_API_KEY, ...config.SIMULATOR_EXTRA_API_KEYS]),
    requests: [] as RequestRecord[],
    /** Every result download, for tests that count them (GET /__control/media). */
    media: [] as MediaRecord[],
    /** Every input file the gateway fetched for a task (GET /__control/inputs). */
    inputs,
    outage: initialOutage(config),
    /** Set by the server: stop accepting connections for `ms`, then listen again. */
    refuseConnections: (ms: number) => void ms,
    closeIdleConnections: () => {},

    activeOutage(now = Date.now()): Outage | null {
      if (state.outage && now >= state.outage.until) state.outage = null;
      return state.outage;
    },

    reset(credits?: number): void {
      Object.assign(config, initial);
      state.gateway.reset(credits);
      callbacks.reset();
      state.scenarios.clear();
      state.limiter.reset();
      state.keys = new Set([config.SIMULATOR_API_KEY, ...config.SIMULATOR_EXTRA_API_KEYS]);
      state.requests.length = 0;
      state.media.length = 0;
      state.inputs.length = 0;
      state.outage = initialOutage(config);
    },

    /** Task ids whose prompt contains `match`: how tests read back only their own records. */
    tasksMatching(match: string): Set<string> {
      return new Set([...state.gateway.tasks.values()].filter((t) => String(t.input.prompt).includes(match)).map((t) => t.taskId));
    },
  };
  return state;
}

function initialOutage(config: SimulatorConfig): Outage | null {
  return config.SIMULATOR_OUTAGE_STATUS ? { mode: "status", status: config.SIMULATOR_OUTAGE_STATUS, until: Infinity } : null;
}
