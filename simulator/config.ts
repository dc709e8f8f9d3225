// The simulator's settings, from its own environment (it is a separate program
// from the app and reads nothing of the app's configuration).
import { z } from "zod";

const num = (fallback: number) => z.coerce.number().finite().min(0).default(fallback);

const schema = z.object({
  SIMULATOR_HOST: z.string().default("127.0.0.1"),
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  /** The one API key the simulated account has. */
  SIMULATOR_API_KEY: z.string().min(1).default("sim-dev-key"),
  SIMULATOR_START_CREDITS: num(100),
  SIMULATOR_PENDING_MS: num(3000),
  SIMULATOR_PENDING_JITTER_MS: num(1000),
  SIMULATOR_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  /** How long result URLs stay valid; after that they answer 410. */
  SIMULATOR_RESULT_TTL_MS: num(24 * 3600_000),
  SIMULATOR_CALLBACK_RETRIES: z.coerce.number().int().min(0).max(20).default(3),
  SIMULATOR_CALLBACK_BACKOFF_MS: num(1000),
  SIMULATOR_CALLBACK_TIMEOUT_MS: num(10_000),
  SIMULATOR_CALLBACK_DUPLICATES: z.coerce.number().int().min(0).max(20).default(0),
  SIMULATOR_CALLBACK_SHAPE: z.enum(["flat", "envelope", "resultJson"]).default("flat"),
  SIMULATOR_LOG: z.enum(["requests", "quiet"]).default("requests"),
});

export type SimulatorConfig = z.infer<typeof schema>;

export function loadConfig(source: Record<string, string | undefined> = process.env): SimulatorConfig {
  const entries = Object.entries(source).filter(([key, value]) => key.startsWith("SIMULATOR_") && value !== "");
  const result = schema.safeParse(Object.fromEntries(entries));
  if (!result.success) {
    throw new Error(`Invalid simulator configuration:\n${result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  }
  return result.data;
}
