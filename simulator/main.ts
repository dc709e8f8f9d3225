// `npm run simulator`: the gateway simulator on its own, on 127.0.0.1:4010 by default.
import { loadConfig } from "./config";
import { createSimulator } from "./server";

const config = loadConfig();
const simulator = createSimulator(config);
const [url] = await Promise.all([simulator.listen(), simulator.clips.findFfmpeg()]);
console.log(`[simulator] gateway simulator listening on ${url} (API key: SIMULATOR_API_KEY, ${config.SIMULATOR_START_CREDITS} credits)`);
// No clip is made at start: each is made when a task first needs it (clips.ts).

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void simulator.close().then(() => process.exit(0));
  });
}
