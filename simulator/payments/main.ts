// `npm run simulator:payments`: the payments simulator on its own, on 127.0.0.1:4020 by default.
import { loadConfig } from "./config";
import { createPaymentsSimulator } from "./server";

const config = loadConfig();
const simulator = createPaymentsSimulator(config);
const url = await simulator.listen();
const endpoint = config.PAYMENTS_SIMULATOR_WEBHOOK_URL || "nowhere (PAYMENTS_SIMULATOR_WEBHOOK_URL is unset)";
console.log(`[payments-simulator] Stripe stand-in listening on ${url} (any sk_test_ key; events to ${endpoint})`);
if (simulator.controlToken && !config.PAYMENTS_SIMULATOR_CONTROL_TOKEN) {
  // Made up for this run: only the person at this terminal can drive the control API from elsewhere.
  console.log(`[payments-simulator] listening beyond loopback: /__control asks for "Authorization: Bearer ${simulator.controlToken}" (set PAYMENTS_SIMULATOR_CONTROL_TOKEN to choose it)`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void simulator.close().then(() => process.exit(0));
  });
}
