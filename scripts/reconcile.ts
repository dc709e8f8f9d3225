// `npm run reconcile`: asks the running app to refresh every stale PENDING
// task. For self-hosting, from cron: `* * * * * cd /srv/framehook && npm run reconcile`.
import "./production-env";
import "./load-env-files";
import { env } from "../lib/env";

const url = new URL(`${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/api/cron/reconcile`);
const response = await fetch(url, {
  headers: { Authorization: `Bearer ${env.CRON_SECRET ?? ""}` },
  signal: AbortSignal.timeout(60_000),
});
const body = await response.text();
console.log(`[reconcile] ${url.origin} → ${response.status} ${body}`);
process.exit(response.ok ? 0 : 1);
