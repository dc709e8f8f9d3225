// Runs a script whose modules read the environment when they load (lib/env.ts):
// loaded inside `run`, so that a bad environment is printed as the message it
// is (every bad variable and how to fix it) rather than inside a stack trace.
import { InvalidEnvironmentError } from "../lib/database/settings";

export async function runWithEnvironment(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    console.error(`[framehook] ${error.message}`);
    process.exit(1);
  }
}
