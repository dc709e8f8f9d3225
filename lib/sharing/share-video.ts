// The owner's two actions on a public link, top to bottom: share (a Ready
// video of theirs with a stored copy gets a new link) and stop sharing (the
// link is a 404 from the next request on, everywhere). Another owner's
// video, or none, is "not_found": the same answer as a missing one.
import "server-only";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { shareGenerationRow, unshareGenerationRow } from "@/lib/generations/store";
import { prepareForSharing } from "./public-copy";
import { shareLinkOf, type ShareLink } from "./share-link";
import { newShare } from "./share-token";

export type ShareOutcome = { status: "shared"; link: ShareLink } | { status: "not_found" } | { status: "not_shareable"; message: string };

export async function shareVideo({ id, ownerId, showPrompt }: { id: string; ownerId: string; showPrompt: boolean }): Promise<ShareOutcome> {
  const row = await prisma.generation.findFirst({
    where: { id, ownerId, deletedAt: null },
    select: { state: true, mediaCopies: { where: { position: 0, state: "DONE" }, select: { id: true, storageKey: true, contentType: true, width: true, height: true } } },
  });
  if (!row) return { status: "not_found" };
  if (row.state !== "SUCCESS") return { status: "not_shareable", message: "Only a Ready video can be shared." };
  // The public routes serve the kit's own copy (public-copy.ts).
  if (!(await prepareForSharing(row.mediaCopies[0]))) return { status: "not_shareable", message: "This video can be shared once its copy is stored." };

  const { seed, key } = newShare({ generationId: id }, env.WEBHOOK_SECRET);
  const sharedAt = await shareGenerationRow({ id, ownerId, key, seed, showPrompt });
  // Deleted (or moved to an account) between the read and the write.
  if (!sharedAt) return { status: "not_found" };
  const link = shareLinkOf({ id, shareKey: key, shareSeed: seed, sharedAt, shareShowsPrompt: showPrompt });
  return { status: "shared", link: link! };
}

export async function stopSharing({ id, ownerId }: { id: string; ownerId: string }): Promise<"stopped" | "not_found"> {
  return (await unshareGenerationRow({ id, ownerId })) ? "stopped" : "not_found";
}
