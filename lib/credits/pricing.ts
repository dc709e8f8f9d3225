// The operator's settings for the kit's credits, as the server applies them:
// whether they are on at all, the markup and a credit's value (passed to the form, so that the browser's
// estimate is the figure held) and the welcome grant a new owner receives.
import "server-only";
import { env } from "@/lib/env";
import type { ModelSpec } from "@/lib/models/catalog";
import { holdCredits, type CreditPricing } from "./prices";

/** CREDITS_ENABLED: false turns off holds, welcome grants and buying; holds taken before still settle. */
export function creditsEnabled(): boolean {
  return env.CREDITS_ENABLED;
}

export function creditPricing(): CreditPricing {
  return { markup: env.CREDITS_MARKUP, creditValueUsd: env.CREDITS_CREDIT_VALUE_USD };
}

/** Credits a new owner (guest or account) is given; the default, 25, is two 5-second 480p videos at the default markup, with a little to spare. */
export function welcomeGrantCredits(): number {
  return env.CREDITS_WELCOME_GRANT;
}

/** New owners welcomed per client address per day; 0: no bound. */
export function welcomeGrantsPerAddress(): number {
  return env.CREDITS_WELCOME_GRANTS_PER_ADDRESS;
}

/** New owners welcomed per day on the whole instance; 0: no ceiling. */
export function welcomeGrantsPerDay(): number {
  return env.CREDITS_WELCOME_GRANTS_PER_DAY;
}

/** The pricing the form estimates with; null when credits are off (a submission holds nothing). */
export const formPricing = (): CreditPricing | null => (creditsEnabled() ? creditPricing() : null);

/** What a submission of `model` for `durationSeconds` holds, at the operator's pricing. */
export const holdFor = (model: Pick<ModelSpec, "usdPerSecond">, durationSeconds: number | undefined) => holdCredits(model, durationSeconds, creditPricing());
