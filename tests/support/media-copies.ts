// A finished generation whose result the copy queue has dealt with, for the
// media tests: submitted through the app, completed by the simulator, then
// copied (or failed) by running the due jobs for it here.
import type { startApp } from "./app";
import { submitPrompt } from "./generations";
import { uniqueMarker, type Scenario } from "./simulator-control";
import { waitFor } from "./wait";

type App = Awaited<ReturnType<typeof startApp>>;

/** Submits `prompt` under a fresh marker with the simulator's `media` scenario and waits until each of its copies is DONE or FAILED. */
export async function submitAndCopy(app: App, { label, prompt, media }: { label: string; prompt: string; media?: Scenario["media"] }) {
  // Loaded here, not at the top: the app's modules read the environment startApp sets.
  const { prisma } = await import("@/lib/db");
  const { runDueMediaJobs } = await import("@/lib/copies/copy-jobs");
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, media });
  const { body } = await submitPrompt(app, `${prompt} ${marker}`);
  const id = body.id as string;
  await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS");
  const [row] = await waitFor(async () => {
    await runDueMediaJobs({ generationIds: [id] });
    const rows = await prisma.mediaCopy.findMany({ where: { generationId: id } });
    return rows.length > 0 && rows.every((r) => r.state === "DONE" || r.state === "FAILED") && rows;
  }, 20_000);
  return { marker, id, row: row! };
}
