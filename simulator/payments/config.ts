// The payments simulator's settings, from its own environment (it is a
// separate program from the app and reads nothing of the app's
// configuration). The delivery settings can also be changed while it runs,
// under the same names, with PATCH /__control/config.
import { z } from "zod";

const num = (fallback: number) => z.coerce.number().finite().min(0).default(fallback);
const int = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);

/** Settings that PATCH /__control/config may change at run time. */
const runtimeShape = {
  /** Where events are sent: the app's webhook endpoint (as registered in Stripe's dashboard). Empty: events are recorded, never sent. */
  PAYMENTS_SIMULATOR_WEBHOOK_URL: z.string().default(""),
  /** The endpoint's signing secret (`whsec_…`), shared with the app's STRIPE_WEBHOOK_SECRET. */
  PAYMENTS_SIMULATOR_WEBHOOK_SECRET: z.string().default("whsec_framehook_dev_only_not_a_secret"),
  /** Attempts after the first when the endpoint answers non-2xx or times out (Stripe retries for 3 days). */
  PAYMENTS_SIMULATOR_RETRIES: int(5, 50),
  /** The first retry's wait; each next one doubles it. */
  PAYMENTS_SIMULATOR_BACKOFF_MS: num(1000),
  PAYMENTS_SIMULATOR_TIMEOUT_MS: num(10_000),
  /** Extra copies of every event, sent at the same moment as the first (each signed on its own). */
  PAYMENTS_SIMULATOR_DUPLICATES: int(0, 50),
  /** Wait before an event's first delivery. */
  PAYMENTS_SIMULATOR_DELAY_MS: num(0),
};

const schema = z.object({
  PAYMENTS_SIMULATOR_HOST: z.string().default("127.0.0.1"),
  PAYMENTS_SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4020),
  PAYMENTS_SIMULATOR_LOG: z.enum(["requests", "quiet"]).default("requests"),
  /** The name the hosted checkout page shows as the seller. */
  PAYMENTS_SIMULATOR_MERCHANT: z.string().min(1).default("Framehook"),
  /**
   * Asked of every /__control request (Authorization: Bearer …) when set. A
   * simulator listening beyond loopback makes one up when none is set (and
   * prints it): its control API pays sessions, which credits the app.
   */
  PAYMENTS_SIMULATOR_CONTROL_TOKEN: z.string().min(16).optional(),
  ...runtimeShape,
});

export type PaymentsConfig = z.infer<typeof schema>;
export type RuntimeSettings = { [K in keyof typeof runtimeShape]: PaymentsConfig[K] };

export function loadConfig(source: Record<string, string | undefined> = process.env): PaymentsConfig {
  const entries = Object.entries(source).filter(([key, value]) => key.startsWith("PAYMENTS_SIMULATOR_") && value !== "");
  const result = schema.safeParse(Object.fromEntries(entries));
  if (!result.success) throw new Error(`Invalid payments simulator configuration:\n${result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  return result.data;
}

const runtimeSchema = z.object(runtimeShape).partial().strict();

export function parseRuntimePatch(body: unknown): { ok: true; patch: Partial<RuntimeSettings> } | { ok: false; message: string } {
  const result = runtimeSchema.safeParse(body ?? {});
  if (!result.success) return { ok: false, message: result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  const named = new Set(Object.keys(body ?? {}));
  return { ok: true, patch: Object.fromEntries(Object.entries(result.data).filter(([key]) => named.has(key))) };
}

export const runtimeKeys = Object.keys(runtimeShape) as (keyof RuntimeSettings)[];
