// Can the gateway fetch uploaded inputs from PUBLIC_BASE_URL? The same rule as
// callbacks (a remote gateway cannot reach a private address), and the same
// proof: asking the input route at the public address, which answers a link
// with no valid signature with the app's JSON 404, not a login page.
import { INPUT_PATH } from "@/lib/uploads/upload-links";
import { unreachableReason } from "./callbacks";
import { fail, ok, skip, type CheckResult, type RawEnvironment } from "./check";
import { probeApp } from "./probe";

const NAME = "Inputs";
/** An upload id no upload has, with a signature no link has: the route's answer is a 404 of its own. */
const PROBE = `${INPUT_PATH}/upl_doctorprobe000000000000?expires=1&sig=probe`;

/** What an answer to the probe says about the input route, as the gateway would meet it. */
export function classifyInputProbe(status: number, contentType: string, body: string): { ok: true } | { ok: false; detail: string; fix: string } {
  if (status === 404 && contentType.includes("json") && body.includes('"not_found"')) return { ok: true };
  if (status === 401 || status === 403) {
    return { ok: false, detail: `answered ${status}: a password or deployment protection stands in front of the input links`, fix: `let ${INPUT_PATH}/ through (the links carry their own signature)` };
  }
  if (status >= 300 && status < 400) return { ok: false, detail: `answered ${status}, a redirect: the gateway may not follow it`, fix: "set PUBLIC_BASE_URL to the final address (scheme, host and www exactly as served)" };
  return { ok: false, detail: `answered ${status}${contentType ? ` (${contentType.split(";")[0]})` : ""}, not the input route's 404`, fix: "set PUBLIC_BASE_URL to this app's public address, including its base path if it has one" };
}

export async function checkInputs({ publicBaseUrl, gatewayIsLocal, storageEnabled, source }: { publicBaseUrl: string; gatewayIsLocal: boolean; storageEnabled: boolean; source: RawEnvironment }): Promise<CheckResult> {
  if (!storageEnabled) return skip(NAME, "uploads are off (MEDIA_STORAGE=none): the form takes no files");
  if (!gatewayIsLocal) {
    const reason = unreachableReason(publicBaseUrl, source);
    if (reason) {
      return fail(
        NAME,
        `the gateway could not fetch uploaded frames and videos from PUBLIC_BASE_URL=${publicBaseUrl}: ${reason.replace(/; callbacks are off.*$/, "")}; submissions with uploads are refused`,
        "set PUBLIC_BASE_URL to the app's public https address (on a laptop, a tunnel such as `cloudflared tunnel --url http://localhost:3000`)",
      );
    }
  }
  const url = `${publicBaseUrl.replace(/\/+$/, "")}${PROBE}`;
  const probe = await probeApp(url);
  if ("failure" in probe) return fail(NAME, probe.failure, "start the app (`npm run dev`), or set PUBLIC_BASE_URL to the address it is served at");
  const { response } = probe;
  const verdict = classifyInputProbe(response.status, response.headers.get("content-type") ?? "", (await response.text()).slice(0, 2000));
  if (!verdict.ok) return fail(NAME, `${INPUT_PATH}/… at ${publicBaseUrl} ${verdict.detail}`, verdict.fix);
  return ok(NAME, `${publicBaseUrl}${INPUT_PATH}/… answers as the input route${gatewayIsLocal ? "" : "; the gateway can fetch uploaded inputs"}`);
}
