// A slow result host does not make other results wait for a copy slot: five
// results trickling under the rate floor, then a normal one, and the normal
// copy is DONE while the slow ones are still being copied (or cut and waiting
// for their retry). With the defaults (the rate window, the slots): no limit
// is shortened here. A database of this file's own, so that its slow copies
// are nobody else's due jobs.
import { afterAll, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { uniqueMarker, type Scenario } from "../support/simulator-control";

const app = await startApp();
const { prisma } = await import("@/lib/db");
const { COPIES_PER_HOST, copyHost, nextWithRoom } = await import("@/lib/copies/copy-jobs");

afterAll(async () => {
  // The slow downloads end with the simulator; their attempts are recorded as failed.
  await app.close();
});

/** 1 MB at 4 KB/s: under the 32 KB/s floor, so each attempt runs until the rate window cuts it. */
const SLOW = { sizeBytes: 1_000_000, bytesPerSecond: 4096 };

async function submit(label: string, media: Scenario["media"]) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, media });
  const { body } = await submitPrompt(app, `far shore ${marker}`);
  return body.id as string;
}

test("five results from a slow host, then a normal one: its copy is DONE while the slow ones are still copying", async () => {
  const slow = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(`slow-${i}`, SLOW)));
  const slowRows = () => prisma.mediaCopy.findMany({ where: { generationId: { in: slow } } });
  // The slow copies have the slots their host may take.
  await waitFor(async () => (await slowRows()).filter((r) => r.state === "COPYING").length >= COPIES_PER_HOST, 20_000);

  const normal = await submit("normal", { sizeBytes: 200_000 });
  // Before the rate window was shortened this waited for the slow copies' 60 s window to end.
  const done = await waitFor(() => prisma.mediaCopy.findFirst({ where: { generationId: normal, state: "DONE" } }), 40_000);
  expect(done.size).toBe(200_000);

  // The slow copies are not finished: none is DONE, and at least one is still being copied.
  const rows = await slowRows();
  expect(rows).toHaveLength(5);
  expect(rows.filter((r) => r.state === "DONE")).toEqual([]);
  expect(rows.some((r) => r.state === "COPYING" || r.state === "PENDING")).toBe(true);
  expect(rows.filter((r) => r.state === "COPYING").length).toBeLessThanOrEqual(COPIES_PER_HOST);
}, 90_000);

test("a copy from another host is not queued behind a busy host's: it takes the next free slot", () => {
  const job = (sourceUrl: string) => ({ job: { sourceUrl, state: "PENDING" as const } });
  const slowHost = "https://slow.example:8443";
  const queue = [...Array.from({ length: 5 }, (_, i) => job(`${slowHost}/r/${i}.mp4`)), job("https://cdn.example/r/normal.mp4")];
  const busy = new Map([[copyHost(queue[0]!.job), COPIES_PER_HOST]]);
  // The slow host runs all it may: the oldest job that can start is the other host's.
  expect(nextWithRoom(queue, busy)).toBe(5);
  // With room for the slow host, its oldest job goes first.
  expect(nextWithRoom(queue, new Map([[copyHost(queue[0]!.job), COPIES_PER_HOST - 1]]))).toBe(0);
  expect(nextWithRoom(queue.slice(0, 5), busy)).toBe(-1);
  // Hosts compare as URLs do: case and default ports do not make another host.
  expect(copyHost({ sourceUrl: "HTTPS://Slow.Example:8443/x", state: "PENDING" })).toBe("slow.example:8443");
  expect(copyHost({ sourceUrl: "https://cdn.example:443/x", state: "PENDING" })).toBe("cdn.example");
});
