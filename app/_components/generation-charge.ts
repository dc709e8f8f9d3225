// What a generation costs its owner, in the kit's credits, worded the same on
// the card, in the viewer and on the detail page. Never the gateway's figure
// (`creditsConsumed`): that is the operator's cost, shown only on /admin.
import { formatCreditCount } from "@/lib/credits/prices";
import type { Generation } from "@/lib/generations/generation";

export { formatCreditCount as creditCount };

const isFailed = (state: Generation["state"]) => state === "FAILURE" || state === "SUBMIT_FAILED";

/**
 * A few words on the charge, or null when there is nothing to say: no hold
 * (made before credits existed), or a failure whose "Not charged" is said
 * already by its error line (failureNote).
 */
export function describeCharge({ state, charge }: Pick<Generation, "state" | "charge">): string | null {
  if (!charge) return null;
  if (isFailed(state) && charge.status !== "held") return null;
  switch (charge.status) {
    case "held":
      return isFailed(state) ? `${formatCreditCount(charge.credits)} held until the gateway confirms` : `Holds ${formatCreditCount(charge.credits)}`;
    case "captured":
      return formatCreditCount(charge.credits);
    case "released":
      return "Not charged";
  }
}

/**
 * What a failure's error line ends with: "Not charged." unless the hold is
 * still open (a submission the gateway may have started after all, which a
 * late success would still charge): then the charge line says so instead.
 */
export const failureNote = ({ charge }: Pick<Generation, "charge">) => (charge?.status === "held" ? null : "Not charged.");
