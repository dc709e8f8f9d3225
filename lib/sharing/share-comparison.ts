// The owner's two actions on a comparison's public link, as on a video's
// (share-video.ts): share (a batch of theirs with at least one Ready video
// whose copy is stored gets a new link) and stop sharing (its page and every
// file of it are a 404 from the next request on). Another owner's batch, or
// none, is "not_found": the same answer as a missing one.
import "server-only";
import { shareBatchRow, unshareBatchRow } from "@/lib/batches/batch-store";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { servablePublicly } from "./public-copy";
import { shareLinkOf } from "./share-link";
import { newShare } from "./share-token";
import type { ShareOutcome } from "./share-video";

export async function shareComparison({ id, ownerId, showPrompt }: { id: string; ownerId: string; showPrompt: boolean }): Promise<ShareOutcome> {
  const row = await prisma.batch.findFirst({
    where: { id, ownerId },
    select: {
      generations: {
        where: { state: "SUCCESS", deletedAt: null },
        select: { mediaCopies: { where: { position: 0, state: "DONE" }, select: { contentType: true } } },
      },
    },
  });
  if (!row) return { status: "not_found" };
  // Its videos still on their way join the public page as they land; at least one must play from the start.
  const servable = await Promise.all(row.generations.map((generation) => servablePublicly(generation.mediaCopies[0])));
  if (!servable.includes(true)) return { status: "not_shareable", message: "This comparison can be shared once one of its videos is Ready and its copy stored." };

  const { seed, key } = newShare({ batchId: id }, env.WEBHOOK_SECRET);
  const sharedAt = await shareBatchRow({ id, ownerId, key, seed, showPrompt });
  // Deleted (its videos, or the account) between the read and the write.
  if (!sharedAt) return { status: "not_found" };
  const link = shareLinkOf({ id, shareKey: key, shareSeed: seed, sharedAt, shareShowsPrompt: showPrompt }, "batch");
  return { status: "shared", link: link! };
}

export async function stopSharingComparison({ id, ownerId }: { id: string; ownerId: string }): Promise<"stopped" | "not_found"> {
  return (await unshareBatchRow({ id, ownerId })) ? "stopped" : "not_found";
}
