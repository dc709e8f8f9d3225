"use client";
// Site-wide notices: the gateway cannot be reached, and callbacks are off so
// results arrive by polling.
import { isGatewayDown, useGatewayStatus } from "./use-gateway-status";

const banner = "rounded-xl px-4 py-3 text-sm ring-1";

export function GatewayBanner() {
  const { error } = useGatewayStatus();
  if (!isGatewayDown(error)) return null;
  return (
    <div role="alert" className={`${banner} bg-red-50 text-red-900 ring-red-200 dark:bg-red-950/60 dark:text-red-100 dark:ring-red-900`}>
      <p>
        <strong className="font-semibold">The video gateway is unreachable.</strong> New videos can’t be submitted right now; videos in
        progress will update once it is back. Checking again every 15 seconds.
      </p>
    </div>
  );
}

export function PollingBanner() {
  return (
    <div className={`${banner} bg-amber-50 text-amber-950 ring-amber-200 dark:bg-amber-950/50 dark:text-amber-100 dark:ring-amber-900`}>
      <p>
        <strong className="font-semibold">Callbacks disabled, using polling.</strong> The gateway can’t reach this server’s public
        address, so results are fetched every few seconds instead of pushed. Set <code className="text-xs">PUBLIC_BASE_URL</code> to a
        public URL to enable callbacks.
      </p>
    </div>
  );
}
