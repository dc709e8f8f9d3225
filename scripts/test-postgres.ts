// `npm run test:postgres`: the integration and fault suites, a type check
// against the PostgreSQL client, and the Playwright flows, on PostgreSQL
// (TEST_DATABASE=postgres: the harnesses start a throwaway server themselves).
// `npm test` runs it after the same suites on SQLite.
import { spawnSync } from "node:child_process";
import path from "node:path";

const env = { ...process.env, TEST_DATABASE: "postgres" };
const bin = (name: string) => path.join(process.cwd(), "node_modules", ".bin", name);
const steps: [string, string[]][] = [
  [bin("vitest"), ["run", "tests/integration", "tests/faults"]],
  // The global setup above generated the PostgreSQL client: the code must type-check against it too.
  [bin("tsc"), ["--noEmit"]],
  [bin("playwright"), ["test"]],
];

for (const [command, args] of steps) {
  console.log(`--- [postgres] ${path.basename(command)} ${args.join(" ")}`);
  const result = spawnSync(command, args, { env, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
