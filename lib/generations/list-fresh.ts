// Reads that keep PENDING generations fresh: before answering, ask the gateway
// about the listed tasks nobody has heard from lately (leased, so many readers
// cost one call per task per interval), within a time budget. A live tab
// (`wait: false`) is answered at once: what the refresh learns reaches it as
// an event, so its reads never queue behind the gateway.
import "server-only";
import { kickMediaCopies } from "@/lib/copies/kick";
import { refreshStaleGenerations } from "./refresh";
import { getGeneration, listGenerations } from "./queries";

const REFRESH_BUDGET_MS = 1_500;

export async function listGenerationsFresh(params: Parameters<typeof listGenerations>[0], { wait = true }: { wait?: boolean } = {}) {
  const page = await listGenerations(params);
  kickMediaCopies(page.items); // copies of the results shown, made in the background
  const pending = page.items.filter((g) => g.state === "PENDING").map((g) => g.id);
  if (pending.length === 0) return page;
  if (!wait) {
    void refreshWithinBudget(pending);
    return page;
  }
  return (await refreshWithinBudget(pending)) ? listGenerations(params) : page;
}

export async function getGenerationFresh(params: Parameters<typeof getGeneration>[0]) {
  const generation = await getGeneration(params);
  if (generation) kickMediaCopies([generation]);
  if (generation?.state !== "PENDING") return generation;
  return (await refreshWithinBudget([params.id])) ? getGeneration(params) : generation;
}

/** True if any task was polled; a slow gateway never holds a reader past the budget. */
export async function refreshWithinBudget(ids: string[]): Promise<boolean> {
  const refresh = refreshStaleGenerations({ ids }).catch((error) => {
    console.error("[framehook] refresh failed", error);
    return 0;
  });
  const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(0), REFRESH_BUDGET_MS).unref());
  return (await Promise.race([refresh, timeout])) > 0;
}
