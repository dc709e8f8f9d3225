// `npm run dev`: the app and the simulators with development defaults. A bad
// environment is reported in its own words, without a stack trace, and exits 1.
import { runWithEnvironment } from "./run-with-environment";

await runWithEnvironment(async () => (await import("./run-app")).runApp(["dev", ...process.argv.slice(2)]));
