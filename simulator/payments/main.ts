// `npm run simulator:payments`: the payments simulator on its own, on 127.0.0.1:4020 by default.
import { loadConfig } from "./config";
import { createPaymentsSimulator } from "./server";

const config = loadConfig();
const simulator = createPaymentsSimulator(config);
const url = await simulator.listen();
const endpoint = config.PAYMENTS_SIMULATOR_WEBHOOK_URL || "nowhere (PAYMENTS_SIMULATOR_WEBHOOK_URL is unset)";
console.log(`[payments-simulator] Stripe stand-in listening on ${url} (any sk_test_ key; events to ${endpoint})`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void simulator.close().then(() => process.exit(0));
  });
}
