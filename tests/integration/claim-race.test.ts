// A guest → account claim racing a guest's comparison on PostgreSQL. The claim
// moves the guest's videos, then its comparisons, in two statements of one
// transaction; each statement sees what committed before it began, and a
// comparison submitted without credits takes no lock the claim waits on. A
// comparison that commits between the two must not be split: its batch with
// the account and its videos with the guest. SQLite runs one writer at a time
// (the claim's transaction holds the write lock from its first write), so no
// commit can fall between its statements there.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { testEngine } from "../support/test-database";
import { uniqueMarker } from "../support/simulator-control";

const app = await startApp({ env: { CREDITS_ENABLED: "false" } });
const { prisma } = await import("@/lib/db");
const { claimGuest } = await import("@/lib/viewer/claim-guest");

afterAll(() => app.close());

describe.skipIf(testEngine() !== "postgres")("a claim and a guest's comparison committing between its statements", () => {
  test("the comparison stays whole with the guest, and the next claim moves it whole", async () => {
    const guestId = `guest-${randomUUID()}`;
    const user = await prisma.user.create({ data: { id: `u-${randomUUID()}`, name: "", email: `${uniqueMarker("race").replace(/\W/g, "").toLowerCase()}@example.com` } });
    const owner = `user:${user.id}`;
    // A video the guest made before: the row the racing transaction locks, so that the claim's move of the
    // guest's videos waits on it (no idempotency key and no hold: no earlier statement of the claim touches it).
    const earlier = await prisma.generation.create({ data: { model: "alpha-2.5-text-to-video-480p", prompt: "earlier", ownerId: guestId, state: "SUCCESS", taskId: `task_${randomUUID()}` } });

    let claiming: Promise<unknown> | undefined;
    const { batch, video } = await prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT "id" FROM "Generation" WHERE "id" = ${earlier.id} FOR UPDATE`;
        const batch = await tx.batch.create({ data: { ownerId: guestId, prompt: "raced" } });
        const video = await tx.generation.create({ data: { model: "alpha-2.5-text-to-video-480p", prompt: "raced", ownerId: guestId, state: "PENDING", taskId: `task_${randomUUID()}`, batchId: batch.id } });
        claiming = claimGuest({ guestId, userId: user.id, visitor: "test-address" });
        // The claim's move of the guest's videos is under way (its snapshot taken) and waits on the locked row.
        await waitFor(async () => {
          const waiting = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_stat_activity
            WHERE "wait_event_type" = 'Lock' AND "query" LIKE '%UPDATE%Generation%SET%ownerId%'`;
          return Number(waiting[0]?.n ?? 0) > 0;
        }, 30_000, "the claim waiting on the locked video");
        return { batch, video };
      },
      { timeout: 60_000 },
    );
    await claiming;

    const owners = async () => ({
      earlier: (await prisma.generation.findUniqueOrThrow({ where: { id: earlier.id } })).ownerId,
      video: (await prisma.generation.findUniqueOrThrow({ where: { id: video.id } })).ownerId,
      batch: (await prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).ownerId,
    });
    // The video committed after the claim's move began: it and its batch stay with the guest, together.
    expect(await owners()).toEqual({ earlier: owner, video: guestId, batch: guestId });

    await claimGuest({ guestId, userId: user.id, visitor: "test-address" });
    expect(await owners()).toEqual({ earlier: owner, video: owner, batch: owner });
  });
});
