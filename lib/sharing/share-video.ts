// The owner's two actions on a public link, top to bottom: share (a Ready
// video of theirs with a stored copy gets a new link) and stop sharing (the
// link is a 404 from the next request on, everywhere). Another owner's
// video, or none, is "not_found": the same answer as a missing one.
import "server-only";
import { ensureVideoSize } from "@/lib/copies/video-size";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { shareGenerationRow, unshareGenerationRow } from "@/lib/generations/store";
import { getMediaStorage } from "@/lib/storage/storage";
import { shareLinkOf, type ShareLink } from "./share-link";
import { newShareSeed, shareKeyOf, shareTokenFor } from "./share-token";

export type ShareOutcome = { status: "shared"; link: ShareLink } | { status: "not_found" } | { status: "not_shareable"; message: string };

export async function shareVideo({ id, ownerId, showPrompt }: { id: string; ownerId: string; showPrompt: boolean }): Promise<ShareOutcome> {
  const row = await prisma.generation.findFirst({
    where: { id, ownerId, deletedAt: null },
    select: { state: true, mediaCopies: { where: { position: 0, state: "DONE" }, select: { id: true, storageKey: true, contentType: true, width: true, height: true } } },
  });
  if (!row) return { status: "not_found" };
  if (row.state !== "SUCCESS") return { status: "not_shareable", message: "Only a Ready video can be shared." };
  // The public routes serve the kit's own copy, never the gateway's link (it expires, and names the gateway).
  const copy = row.mediaCopies[0];
  const storage = await getMediaStorage();
  if (!copy || !storage || !copy.contentType?.startsWith("video/")) {
    return { status: "not_shareable", message: "This video can be shared once its copy is stored." };
  }
  // Link previews state the size; read once, here, rather than on a crawler's request.
  await ensureVideoSize({ copy, storage });

  const seed = newShareSeed();
  const token = shareTokenFor({ generationId: id, seed }, env.WEBHOOK_SECRET);
  const sharedAt = await shareGenerationRow({ id, ownerId, key: shareKeyOf(token), seed, showPrompt });
  // Deleted (or moved to an account) between the read and the write.
  if (!sharedAt) return { status: "not_found" };
  const link = shareLinkOf({ id, shareKey: shareKeyOf(token), shareSeed: seed, sharedAt, shareShowsPrompt: showPrompt });
  return { status: "shared", link: link! };
}

export async function stopSharing({ id, ownerId }: { id: string; ownerId: string }): Promise<"stopped" | "not_found"> {
  return (await unshareGenerationRow({ id, ownerId })) ? "stopped" : "not_found";
}
