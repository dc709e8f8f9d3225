// Does the configured gateway answer, and does it accept our key? Uses the
// app's own client, so the doctor sees exactly what a submission would.
import { GatewayError } from "@/lib/gateway/client";
import { fail, ok, type CheckResult } from "./check";

const NAME = "Gateway";

export async function checkGateway({
  baseUrl,
  gatewayIsLocal,
  getCredits,
}: {
  baseUrl: string;
  gatewayIsLocal: boolean;
  getCredits: () => Promise<number>;
}): Promise<CheckResult> {
  const where = new URL(baseUrl).origin;
  try {
    const balance = await getCredits();
    if (balance <= 0) {
      return fail(NAME, `${where} accepts the key but the balance is ${balance} credits: every submission will be refused (402)`, "top up the gateway account");
    }
    return ok(NAME, `${where} accepts GATEWAY_API_KEY; balance ${balance} credits`);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    if (error.kind === "unauthorized") {
      return fail(
        NAME,
        `${where} refused GATEWAY_API_KEY (${error.options.status}): the key is wrong`,
        gatewayIsLocal
          ? "unset GATEWAY_API_KEY to use the simulator's key, or set it to the simulator's SIMULATOR_API_KEY"
          : "copy the key again from your gateway account into GATEWAY_API_KEY (no quotes or spaces), then restart",
      );
    }
    if (error.kind === "unavailable" || error.kind === "timeout") {
      return fail(
        NAME,
        `${where} is not reachable: ${error.message}`,
        gatewayIsLocal
          ? "start the simulator: `npm run dev` starts it with the app (or `npm run simulator` alone)"
          : "check GATEWAY_BASE_URL and this machine's network; GATEWAY_TIMEOUT_MS is the wait per call",
      );
    }
    return fail(NAME, `${where} answered GET /api/credits with ${error.kind}: ${error.message}`, "check that GATEWAY_BASE_URL is the gateway's API base URL (the one whose /api/credits answers)");
  }
}
