// `npm test`: lint, types and migrations, the Vitest suites and Playwright
// flows on SQLite, then the PostgreSQL pass (scripts/test-postgres.ts), each
// step timed (scripts/run-steps.ts).
import { runSteps } from "./run-steps";
import { postgresSteps } from "./test-postgres";

const npm = (script: string) => ({ command: "npm", args: ["run", "--silent", script] });

runSteps([
  { name: "lint", ...npm("lint") },
  { name: "types", ...npm("typecheck") },
  { name: "db:check", ...npm("db:check") },
  { name: "SQLite Vitest", ...npm("test:unit") },
  { name: "SQLite Playwright", ...npm("test:e2e") },
  ...postgresSteps,
]);
