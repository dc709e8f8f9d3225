// The gateway's models and prices (docs/gateway-api.md §1). Credits are USD:
// one credit buys one dollar of generation.

export type SimulatedModel = {
  kind: "text-to-video" | "first-last-frame" | "reference-to-video";
  usdPerSecond: number;
  /** True where the real gateway says "pay-per-use": the rate here is simulated. */
  simulatedRate: boolean;
};

export const SIMULATED_MODELS: Record<string, SimulatedModel> = {
  "alpha-2.5-first-last-frame-480p": { kind: "first-last-frame", usdPerSecond: 0.1408, simulatedRate: false },
  "alpha-2.5-text-to-video-480p": { kind: "text-to-video", usdPerSecond: 0.1408, simulatedRate: false },
  "alpha-2.5-text-to-video": { kind: "text-to-video", usdPerSecond: 0.1408, simulatedRate: false },
  "beta-1-1/reference-to-video": { kind: "reference-to-video", usdPerSecond: 0.1, simulatedRate: true },
  "gamma/reference-to-video": { kind: "reference-to-video", usdPerSecond: 0.12, simulatedRate: true },
  "delta-h3/reference-to-video": { kind: "reference-to-video", usdPerSecond: 0.1181, simulatedRate: false },
};

export const DEFAULT_DURATION_SECONDS = 5;

/** Cost in credits, rounded to a ten-thousandth. */
export function costOf(model: SimulatedModel, durationSeconds: number): number {
  return Math.round(model.usdPerSecond * durationSeconds * 10_000) / 10_000;
}
