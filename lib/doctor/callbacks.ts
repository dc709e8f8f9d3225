// Can the gateway call us back at PUBLIC_BASE_URL? A remote gateway cannot
// reach a private address or a per-deployment preview URL, and a password or
// deployment protection in front of the receiver turns every callback away. The
// proof is asking the receiver at the public address: it answers GET with 405.
import { isPrivateHost, WEBHOOK_PATH } from "@/lib/generations/callback-url";
import { fail, ok, type CheckResult, type RawEnvironment } from "./check";
import { probeApp } from "./probe";

const NAME = "Callbacks";

/** Why a remote gateway could not call this base URL back, or undefined when it could. */
export function unreachableReason(publicBaseUrl: string, source: RawEnvironment): string | undefined {
  const host = new URL(publicBaseUrl).hostname.toLowerCase();
  if (isPrivateHost(host) || isPrivateIpv6(host)) {
    return `${host} is a local, private or link-local address; callbacks are off and tasks finish only by polling`;
  }
  const production = source.VERCEL_PROJECT_PRODUCTION_URL?.toLowerCase();
  const perDeployment = [source.VERCEL_URL, source.VERCEL_BRANCH_URL].map((h) => h?.toLowerCase()).filter(Boolean);
  if (production && host !== production && perDeployment.includes(host)) {
    return `${host} is this deployment's own preview URL: it changes with every deploy and sits behind Vercel's deployment protection, so callbacks are refused or reach an old deployment`;
  }
  return undefined;
}

function isPrivateIpv6(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare.includes(":") && /^(::1?$|f[cd]|fe[89ab])/i.test(bare);
}

/** What an answer to GET <PUBLIC_BASE_URL>/api/webhooks/gateway says about the receiver. */
export function classifyProbe(status: number, headers: Headers): { ok: true } | { ok: false; detail: string; fix: string } {
  if (status === 405) return { ok: true };
  if (status === 401 || status === 403) {
    return {
      ok: false,
      detail: `answered ${status}: a password or deployment protection stands in front of the receiver`,
      fix: "let /api/webhooks/gateway through (Vercel: disable Deployment Protection for production or add a bypass; a proxy's basic auth: exempt that path)",
    };
  }
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      detail: `answered ${status}, a redirect to ${headers.get("location") ?? "elsewhere"}: a gateway does not follow redirects with its POST`,
      fix: "set PUBLIC_BASE_URL to the final address (scheme, host and www exactly as served), or remove the login redirect",
    };
  }
  if (status === 404) {
    return { ok: false, detail: "answered 404: no Framehook receiver at that address", fix: "set PUBLIC_BASE_URL to this app's address, including its base path if it has one" };
  }
  const type = headers.get("content-type") ?? "";
  return {
    ok: false,
    detail: `answered ${status}${type ? ` (${type.split(";")[0]})` : ""}, not the receiver's 405${type.includes("html") ? ": a page, likely a login or another app" : ""}`,
    fix: "set PUBLIC_BASE_URL to this app's public address, and let /api/webhooks/gateway through any login or protection",
  };
}

export async function checkCallbacks({
  publicBaseUrl,
  gatewayIsLocal,
  source,
}: {
  publicBaseUrl: string;
  gatewayIsLocal: boolean;
  source: RawEnvironment;
}): Promise<CheckResult> {
  if (!gatewayIsLocal) {
    const reason = unreachableReason(publicBaseUrl, source);
    if (reason) {
      const production = source.VERCEL_PROJECT_PRODUCTION_URL;
      return fail(
        NAME,
        `the gateway cannot call back PUBLIC_BASE_URL=${publicBaseUrl}: ${reason}`,
        production
          ? `set PUBLIC_BASE_URL=https://${production}`
          : "set PUBLIC_BASE_URL to the app's public https address (on a laptop, a tunnel such as `cloudflared tunnel --url http://localhost:3000`)",
      );
    }
  }
  const receiver = `${publicBaseUrl.replace(/\/+$/, "")}${WEBHOOK_PATH}`;
  const probe = await probeApp(receiver);
  if ("failure" in probe) return fail(NAME, probe.failure, "start the app (`npm run dev`), or set PUBLIC_BASE_URL to the address it is served at");
  const { response } = probe;
  await response.body?.cancel();
  const verdict = classifyProbe(response.status, response.headers);
  if (!verdict.ok) return fail(NAME, `${receiver} ${verdict.detail}`, verdict.fix);
  return ok(NAME, `${receiver} reaches the receiver (GET answers 405, POST only)${gatewayIsLocal ? "" : "; the gateway can call back"}`);
}
