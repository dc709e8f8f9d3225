// What the app itself recorded about a generation's outcome, for tests that
// must notice a double apply or a double charge: the generation's credits,
// its APPLIED deliveries, the state changes it published (counted on an event
// stream opened before the work), and the owner's spend ledger (/api/spend).
import { expect } from "vitest";
import type { startApp } from "./app";
import { SseReader } from "./sse-reader";
import { waitFor } from "./wait";

type App = Awaited<ReturnType<typeof startApp>>;
type Prisma = typeof import("@/lib/db").prisma;
type Visitor = App["fetch"];

/** An event stream as `visitor`, open and ready: every change published from now on for that owner arrives on it. */
export async function openChanges(app: App, visitor: Visitor = app.fetch): Promise<SseReader> {
  const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await visitor.cookieHeader() });
  await waitFor(() => stream.messages.some((m) => m.event === "ready"));
  return stream;
}

/**
 * The states published for `id`, once everything published so far has
 * arrived: a sentinel generation submitted now is published after them, and
 * a stream carries one owner's events in order.
 */
export async function publishedStates(app: App, stream: SseReader, id: string, visitor: Visitor = app.fetch): Promise<string[]> {
  const sentinel = await visitor("/api/generations", {
    method: "POST",
    json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `sentinel ${Math.random()}`, duration: 2 } },
  });
  expect(sentinel.status).toBe(201);
  const { id: sentinelId } = (await sentinel.json()) as { id: string };
  await waitFor(() => stream.changes().some((c) => c.id === sentinelId), 15_000);
  // One entry per version of the row: a stored copy finishing announces the row again, unchanged.
  const versions = new Map(stream.changes().filter((c) => c.id === id).map((c) => [`${c.state}@${c.updatedAt}`, c.state]));
  return [...versions.values()];
}

/** The owner's spend as the app's ledger shows it (the app must run with SPEND_LIMIT_CREDITS > 0). */
export async function spentCredits(visitor: Visitor): Promise<number> {
  const response = await visitor("/api/spend");
  expect(response.status).toBe(200);
  const { spend } = (await response.json()) as { spend: { used: number } | null };
  if (!spend) throw new Error("/api/spend has no ledger: start the app with SPEND_LIMIT_CREDITS");
  return spend.used;
}

/** Deliveries of a generation by outcome, e.g. `{ APPLIED: 1, DUPLICATE: 4 }`. */
export async function deliveryOutcomes(prisma: Prisma, generationId: string): Promise<Record<string, number>> {
  const rows = await prisma.delivery.groupBy({ by: ["outcome"], where: { generationId }, _count: true });
  return Object.fromEntries(rows.map((row) => [row.outcome, row._count]));
}
