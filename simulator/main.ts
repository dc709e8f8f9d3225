// `npm run simulator`: the gateway simulator on its own, on 127.0.0.1:4010 by default.
import { loadConfig } from "./config";
import { createSimulator } from "./server";

const config = loadConfig();
const simulator = createSimulator(config);
const url = await simulator.listen();
console.log(`[simulator] gateway simulator listening on ${url} (API key: SIMULATOR_API_KEY, ${config.SIMULATOR_START_CREDITS} credits)`);
// In the background: a result served before this ends waits only for its own clip.
simulator.clips.prepare().then(
  ({ made, ms }) => made > 0 && ms > 1000 && console.log(`[simulator] made ${made} real-size result clips in ${ms}ms (cached in ${simulator.clips.dir})`),
  (error: unknown) => console.error("[simulator] could not make the result clips:", error),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void simulator.close().then(() => process.exit(0));
  });
}
