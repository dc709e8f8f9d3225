// `npm run test:postgres`: the integration and fault suites, a type check
// against the PostgreSQL client, and the Playwright flows, on PostgreSQL
// (TEST_DATABASE=postgres: the harnesses start a throwaway server themselves).
// `npm test` runs these steps after the same suites on SQLite (scripts/test.ts).
import path from "node:path";
import { runSteps, type Step } from "./run-steps";

const env = { ...process.env, TEST_DATABASE: "postgres" };
const bin = (name: string) => path.join(process.cwd(), "node_modules", ".bin", name);

export const postgresSteps: Step[] = [
  { name: "PostgreSQL Vitest", command: bin("vitest"), args: ["run", "tests/integration", "tests/faults"], env },
  // The global setup above generated the PostgreSQL client: the code must type-check against it too.
  { name: "PostgreSQL types", command: bin("tsc"), args: ["--noEmit"], env },
  { name: "PostgreSQL Playwright", command: bin("playwright"), args: ["test"], env },
];

if (import.meta.url === `file://${process.argv[1]}`) runSteps(postgresSteps);
