// The simulator's settings, from its own environment (it is a separate program
// from the app and reads nothing of the app's configuration). Most of them can
// also be changed while it runs, under the same names, with PATCH /__control/config.
import { z } from "zod";
import { LOOKS } from "./clip-looks";

const num = (fallback: number) => z.coerce.number().finite().min(0).default(fallback);
const rate = (fallback: number) => z.coerce.number().min(0).max(1).default(fallback);
const int = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);
const flag = (fallback: boolean) =>
  z.preprocess((v) => (typeof v === "string" ? ["1", "true", "yes", "on"].includes(v.toLowerCase()) : v), z.boolean()).default(fallback);

/** Settings that PATCH /__control/config may change at run time. */
const runtimeShape = {
  SIMULATOR_PENDING_MS: num(3000),
  SIMULATOR_PENDING_JITTER_MS: num(1000),
  SIMULATOR_FAILURE_RATE: rate(0),
  /** How long result URLs stay valid after completion; after that they answer 410. */
  SIMULATOR_RESULT_TTL_MS: num(24 * 3600_000),
  SIMULATOR_CALLBACK_RETRIES: int(3, 20),
  SIMULATOR_CALLBACK_BACKOFF_MS: num(1000),
  SIMULATOR_CALLBACK_TIMEOUT_MS: num(10_000),
  SIMULATOR_CALLBACK_DUPLICATES: int(0, 20),
  SIMULATOR_CALLBACK_SHAPE: z.enum(["flat", "envelope", "resultJson"]).default("flat"),
  SIMULATOR_CALLBACK_DELAY_MS: num(0),
  SIMULATOR_CALLBACK_DROP_RATE: rate(0),
  SIMULATOR_CALLBACK_OUT_OF_ORDER: flag(false),
  /** Added to every API call (not /media, not /__control), plus up to the jitter. */
  SIMULATOR_LATENCY_MS: num(0),
  SIMULATOR_LATENCY_JITTER_MS: num(0),
  /** Requests per window and per API key; 0 turns throttling off. */
  SIMULATOR_RATE_LIMIT: int(0, 1_000_000),
  SIMULATOR_RATE_LIMIT_WINDOW_MS: z.coerce.number().finite().min(1).default(10_000),
  /** Share of API calls answered 503 at random, as a flaky upstream does. */
  SIMULATOR_ERROR_RATE: rate(0),
  /** Start "down": every API call answers this status until DELETE /__control/outage. 0: up. */
  SIMULATOR_OUTAGE_STATUS: z.coerce.number().int().refine((n) => n === 0 || (n >= 400 && n <= 599), "0 or an HTTP error status").default(0),
};

const schema = z.object({
  SIMULATOR_HOST: z.string().default("127.0.0.1"),
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  /** The API key of the simulated account. */
  SIMULATOR_API_KEY: z.string().min(1).default("sim-dev-key"),
  /** More keys of the same account (comma-separated), each with its own rate-limit budget. */
  SIMULATOR_EXTRA_API_KEYS: z
    .string()
    .default("")
    .transform((s) => s.split(",").map((k) => k.trim()).filter(Boolean)),
  SIMULATOR_LOG: z.enum(["requests", "quiet"]).default("requests"),
  /** The balance at start and after a reset without credits (POST /__control/credits sets it at run time). */
  SIMULATOR_START_CREDITS: num(100),
  /** Results: "real-size" clips made with the system's FFmpeg (samples without it), or always the small "samples". */
  SIMULATOR_CLIPS: z.enum(["real-size", "samples"]).default("real-size"),
  /** Where real-size clips are cached; empty: a folder in the OS temp dir, shared by every simulator on the machine. */
  SIMULATOR_CLIP_CACHE_DIR: z.string().default(""),
  /** How many looks (clip-looks.ts) prompts are spread over: each look is six cached clips; 1 gives every result the same one. */
  SIMULATOR_CLIP_LOOKS: z.coerce.number().int().min(1).max(LOOKS.length).default(LOOKS.length),
  ...runtimeShape,
});

export type SimulatorConfig = z.infer<typeof schema>;
export type RuntimeSettings = { [K in keyof typeof runtimeShape]: SimulatorConfig[K] };

export function loadConfig(source: Record<string, string | undefined> = process.env): SimulatorConfig {
  const entries = Object.entries(source).filter(([key, value]) => key.startsWith("SIMULATOR_") && value !== "");
  const result = schema.safeParse(Object.fromEntries(entries));
  if (!result.success) throw new Error(`Invalid simulator configuration:\n${describeIssues(result.error)}`);
  return result.data;
}

const runtimeSchema = z.object(runtimeShape).partial().strict();

/** Parses a PATCH /__control/config body: only the keys it names, with the env's names and rules. */
export function parseRuntimePatch(body: unknown): { ok: true; patch: Partial<RuntimeSettings> } | { ok: false; message: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, message: "Body must be a JSON object of SIMULATOR_* settings." };
  const result = runtimeSchema.safeParse(body);
  if (!result.success) return { ok: false, message: describeIssues(result.error) };
  const named = new Set(Object.keys(body));
  return { ok: true, patch: Object.fromEntries(Object.entries(result.data).filter(([key]) => named.has(key))) };
}

export const runtimeKeys = Object.keys(runtimeShape) as (keyof RuntimeSettings)[];

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const keys = "keys" in i && Array.isArray(i.keys) ? ` ${i.keys.join(", ")}` : "";
      return `  ${i.path.join(".")}${keys}: ${i.message}`;
    })
    .join("\n");
}
