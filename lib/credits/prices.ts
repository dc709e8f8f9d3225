// What the kit's credits cost and what a generation costs in them: the credit
// packs people buy, and the conversion of a gateway cost into whole credits
// with the operator's markup. Plain data and arithmetic (no server code), so
// the form shows exactly the figure the submission will hold.
import { DEFAULT_DURATION_SECONDS, type ModelSpec } from "@/lib/models/catalog";

/** "1 credit", "1,200 credits": how every page and message counts the kit's credits. */
export const formatCreditCount = (n: number) => `${n.toLocaleString("en-US")} ${Math.abs(n) === 1 ? "credit" : "credits"}`;

export type CreditPack = {
  id: string;
  name: string;
  credits: number;
  /** The price in the currency's minor units (cents): what Checkout charges. */
  unitAmount: number;
  /** ISO 4217, lower case as Stripe writes it. */
  currency: string;
};

/**
 * The packs on sale. A credit is worth $0.10 at list price (the smallest pack),
 * so one 5-second 480p video (about 11 credits with the default markup) costs
 * about $1.10. Larger packs are cheaper per credit (10% and about 17.5% off),
 * which still leaves every pack above the gateway's cost with the default
 * markup of 1.5: at $99 / 1,200 a credit sells for $0.0825, and 11 credits
 * ($0.91) cover the gateway's $0.70 plus the card fees. An operator who lowers
 * CREDITS_MARKUP should check the largest pack's margin again.
 */
export const CREDIT_PACKS: readonly CreditPack[] = [
  { id: "starter", name: "Starter", credits: 100, unitAmount: 1_000, currency: "usd" },
  { id: "creator", name: "Creator", credits: 500, unitAmount: 4_500, currency: "usd" },
  { id: "studio", name: "Studio", credits: 1_200, unitAmount: 9_900, currency: "usd" },
];

export function findCreditPack(id: string): CreditPack | undefined {
  return CREDIT_PACKS.find((pack) => pack.id === id);
}

/** A pack's price as people read it: "$45.00". */
export function formatPackPrice(pack: Pick<CreditPack, "unitAmount" | "currency">): string {
  const format = new Intl.NumberFormat("en-US", { style: "currency", currency: pack.currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(pack.unitAmount / 10 ** digits);
}

/**
 * How gateway cost becomes the user's credits: cost × markup ÷ the value of
 * one credit, rounded up to a whole credit. Set by the operator
 * (CREDITS_MARKUP, CREDITS_CREDIT_VALUE_USD); the server passes its pricing to
 * the form, so the browser computes the same figure.
 */
export type CreditPricing = {
  /** What the operator charges over the gateway's cost: 1.5 sells at 150% of cost. */
  markup: number;
  /** What one credit is worth in USD when converting a gateway cost. */
  creditValueUsd: number;
};

export const DEFAULT_PRICING: CreditPricing = { markup: 1.5, creditValueUsd: 0.1 };

/** The gateway's credits are US dollars (its prices are quoted per output second in USD). */
export const GATEWAY_USD_PER_CREDIT = 1;

/**
 * USD per output second assumed for "pay-per-use" models, whose rate the
 * gateway does not publish: above every published rate (0.1408/s), so an
 * estimate errs on the side of holding enough. The spending caps assume the same.
 */
export const ASSUMED_USD_PER_SECOND = 0.15;

// Fixed-point: a cost in millionths of a dollar, a markup in ten-thousandths.
// In BigInt, so the rounding up is exact: 1.0 × 1.5 ÷ 0.1 in floating point is
// 15.000000000000002, which Math.ceil would make 16.
const MICROS = 1_000_000;
const MARKUP_SCALE = 10_000;

/** Whole credits for a cost in USD: rounded up (or, for a limit, down), never negative, always an integer. */
export function creditsForUsd(usd: number, pricing: CreditPricing = DEFAULT_PRICING, rounding: "up" | "down" = "up"): number {
  if (!Number.isFinite(usd)) throw new RangeError(`Not a cost: ${usd}`);
  if (usd <= 0) return 0;
  const costMicros = BigInt(Math.round(usd * MICROS));
  const markup = BigInt(Math.round(pricing.markup * MARKUP_SCALE));
  const creditMicros = BigInt(Math.round(pricing.creditValueUsd * MICROS));
  if (markup <= 0n || creditMicros <= 0n) throw new RangeError("The markup and a credit's value must be positive");
  const numerator = costMicros * markup;
  const denominator = creditMicros * BigInt(MARKUP_SCALE);
  return Number((rounding === "up" ? numerator + denominator - 1n : numerator) / denominator);
}

/**
 * A figure in the gateway's credits (a spending cap, what it has counted) in
 * whole credits of the kit, priced as a hold is: rounded up for what was used
 * (as each hold is), down for a limit (never more than it allows).
 */
export function gatewayCreditsInCredits(gatewayCredits: number, rounding: "up" | "down", pricing: CreditPricing = DEFAULT_PRICING): number {
  return creditsForUsd(gatewayCredits * GATEWAY_USD_PER_CREDIT, pricing, rounding);
}

/** The gateway's cost of one output in USD, with the assumed rate where none is published. */
export function gatewayCostUsd(model: Pick<ModelSpec, "usdPerSecond">, durationSeconds: number | undefined): number {
  return (model.usdPerSecond ?? ASSUMED_USD_PER_SECOND) * (durationSeconds ?? DEFAULT_DURATION_SECONDS);
}

/** What a submission holds: its estimated gateway cost in credits. The form shows this same figure. */
export function holdCredits(model: Pick<ModelSpec, "usdPerSecond">, durationSeconds: number | undefined, pricing: CreditPricing = DEFAULT_PRICING): number {
  return creditsForUsd(gatewayCostUsd(model, durationSeconds), pricing);
}

/**
 * The largest charge the outcome write takes: a ledger amount is a 32-bit
 * integer column on PostgreSQL, so a gateway figure priced above it (a
 * garbled or hostile `creditsConsumed`, 1e12) would fail that write on every
 * retry. Any charge this large is far above its hold, and captured at the hold.
 */
export const MAX_CHARGE_CREDITS = 2_147_483_647;

/**
 * A SUCCESS's charge as the outcome write takes it (it caps it at the hold
 * itself): the gateway's `creditsConsumed` priced in whole credits, at most
 * MAX_CHARGE_CREDITS; null when the gateway did not say (the hold is the cost).
 */
export function gatewayChargeCredits(creditsConsumed: number | null, pricing: CreditPricing = DEFAULT_PRICING): number | null {
  if (creditsConsumed === null || !Number.isFinite(creditsConsumed)) return null;
  return Math.min(creditsForUsd(creditsConsumed * GATEWAY_USD_PER_CREDIT, pricing), MAX_CHARGE_CREDITS);
}

/**
 * What a SUCCESS costs the user, given the gateway's `creditsConsumed`: that
 * cost in credits, never more than the hold (a higher gateway figure is the
 * operator's loss, reported as `overHold`); the whole hold when the gateway
 * did not say.
 */
export function chargeCredits(
  creditsConsumed: number | null,
  hold: number,
  pricing: CreditPricing = DEFAULT_PRICING,
): { charge: number; overHold: boolean } {
  if (creditsConsumed === null || !Number.isFinite(creditsConsumed)) return { charge: hold, overHold: false };
  const priced = creditsForUsd(creditsConsumed * GATEWAY_USD_PER_CREDIT, pricing);
  return { charge: Math.min(priced, hold), overHold: priced > hold };
}
