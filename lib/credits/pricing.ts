// The operator's settings for the kit's credits, as the server applies them:
// the markup and a credit's value (passed to the form, so that the browser's
// estimate is the figure held) and the welcome grant a new owner receives.
import "server-only";
import { DEFAULT_PRICING, holdCredits, type CreditPricing } from "./prices";
import type { ModelSpec } from "@/lib/models/catalog";

/** Credits a new owner (guest or account) is given: two 5-second 480p videos at the default markup, with a little to spare. */
export const DEFAULT_WELCOME_GRANT = 25;

export function creditPricing(): CreditPricing {
  return DEFAULT_PRICING;
}

export function welcomeGrantCredits(): number {
  return DEFAULT_WELCOME_GRANT;
}

/** What a submission of `model` for `durationSeconds` holds, at the operator's pricing. */
export const holdFor = (model: Pick<ModelSpec, "usdPerSecond">, durationSeconds: number | undefined) => holdCredits(model, durationSeconds, creditPricing());
