// What a submission the gateway refused or never answered tells the user,
// and the code stored with it; the precise cause goes to the log.
import "server-only";
import { AppError, type ErrorCode } from "@/lib/errors";
import type { GatewayError } from "@/lib/gateway/client";

/** What the user is told; the precise cause goes to the log. */
export function describeSubmitFailure(error: GatewayError, { followable }: { followable: boolean }): AppError {
  // Whether a task the gateway started anyway can still reach this generation:
  // only through its callback, so not when callbacks are off.
  const ifStarted = followable
    ? "if it started the task anyway, the result will appear here. Its credits stay held until then, and are given back if it never does."
    : "if it started the task anyway, it cannot be followed here without callbacks: check the gateway's dashboard before trying again.";
  const fail = (code: ErrorCode, message: string, headers?: Record<string, string>) =>
    new AppError(code, message, undefined, headers);
  switch (error.kind) {
    case "unauthorized":
      console.error(`[framehook] the gateway rejected GATEWAY_API_KEY (HTTP ${error.options.status}); check the key's value and account.`);
      return fail("gateway_unavailable", "The video service is misconfigured. Nothing was charged; the operator has been notified.");
    case "insufficient_credits":
      // The operator's prepaid balance at the gateway, not the user's credits (402 insufficient_credits is theirs).
      console.error("[framehook] the gateway refused a submission for want of credits: top up the gateway account (its balance is on /admin).");
      return fail("gateway_unavailable", "The video service cannot take new videos right now. Nothing was charged and your credits were given back; the operator has been notified.");
    case "invalid_input":
      return fail("invalid_input", `The gateway rejected the input: ${error.message}. Nothing was charged.`);
    case "rate_limited": {
      const seconds = Math.ceil((error.options.retryAfterMs ?? 5000) / 1000);
      return fail("rate_limited", `The gateway is throttling requests. Try again in ${seconds} s. Nothing was charged.`, {
        "Retry-After": String(seconds),
      });
    }
    case "timeout":
      console.warn("[framehook] gateway submit timed out after sending; not retried, to avoid a duplicate task");
      return fail(
        "gateway_unavailable",
        `The gateway did not answer in time. It was not asked twice, to avoid a duplicate task; ${ifStarted}`,
      );
    default:
      console.warn(`[framehook] gateway submit failed: ${error.kind}: ${error.message}`);
      // No answer (a connection cut after sending) or a garbled one: the task may exist.
      if (error.options.mayHaveReachedGateway && error.options.status === undefined) {
        return fail(
          "gateway_unavailable",
          `The gateway did not answer properly. It was not asked twice, to avoid a duplicate task; ${ifStarted}`,
        );
      }
      return fail("gateway_unavailable", "The video gateway is unavailable right now. Nothing was charged; try again in a moment.");
  }
}

/**
 * The stored codes of submissions the gateway may have started anyway (the
 * request was sent, the answer never came or made no sense, or the app died
 * waiting): a callback for such a task may still claim the generation
 * (receive-callback.ts), and the spending caps count it at its estimate
 * (spend-limit.ts). Refusals the gateway answered are final.
 */
export const ADOPTABLE_SUBMIT_FAILURES = ["submit_timeout", "submit_no_answer", "submit_bad_response", "submit_interrupted"];

/**
 * A failed submission whose task may still claim it: adoptable, and sent with
 * a callback URL (the only way a task the gateway started anyway can reach
 * it). Its credit hold stays open, since that task may be running; the cron
 * gives it back once adoption is no longer expected (reconcile.ts).
 */
export const awaitsAdoption = (g: { errorCode: string | null; callbackEnabled: boolean }) =>
  g.callbackEnabled && ADOPTABLE_SUBMIT_FAILURES.includes(g.errorCode ?? "");

/**
 * `submit_<kind>`, with a connection refused (never sent: `submit_unreachable`)
 * told apart from one cut after sending (`submit_no_answer`): only the latter,
 * a timeout, a garbled answer or a crash may have started a task
 * (ADOPTABLE_SUBMIT_FAILURES).
 */
export function storedCode(error: GatewayError): string {
  if (error.kind !== "unavailable") return `submit_${error.kind}`;
  if (!error.options.mayHaveReachedGateway) return "submit_unreachable";
  return error.options.status === undefined ? "submit_no_answer" : "submit_unavailable";
}
