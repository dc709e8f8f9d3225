// `npm run doctor`: what is wrong with this machine's setup, and how to fix it.
// Exits 1 when any check fails. Checks a deployment's settings with
// NODE_ENV=production (it then reads .env.production*, as `next start` does).
import "./load-env-files";
import { formatReport, runDoctor } from "../lib/doctor/run-doctor";

const results = await runDoctor();
console.log(`Framehook doctor (NODE_ENV=${process.env.NODE_ENV ?? "development"})\n`);
console.log(formatReport(results));
process.exit(results.some((r) => r.status === "fail") ? 1 : 0);
