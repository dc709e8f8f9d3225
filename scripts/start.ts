// `npm start`: the production build, with the environment checked first. A bad
// environment is reported in its own words, without a stack trace, and exits 1.
import "./production-env";
import { runWithEnvironment } from "./run-with-environment";

await runWithEnvironment(async () => (await import("./run-app")).runApp(["start", ...process.argv.slice(2)]));
