// What a comparison's public link opens, for anyone holding it and nobody
// else: its videos side by side, each with its model, in the order the models
// were asked for, the owner's pick, and (if the owner left it on) the prompt.
// Never the owner, their gallery, inputs or credits. A video is addressed by
// its place in the batch; on S3 its file's signed redirect names the stored
// key, which holds the generation's id, as a shared video's does. Read again on every request,
// like a shared video (shared-video.ts), so stopping, deleting a video or the
// account answers 404 at once on every instance.
//   token malformed, unknown, or not this share's      → null (404)
//   no video left that plays or may (all deleted,
//   failed, or their copies removed by retention)      → null (404)
//   a video deleted                                    → left out; its files 404
//   Ready with its copy stored                         → plays (its file and still served)
//   submitted, generating, or its copy on its way      → "pending": shown as not ready yet
//   failed, or its copy could not be kept              → "unavailable": shown without a video
import "server-only";
import { serveCopy, serveStill } from "@/lib/copies/serve-media";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { findModel } from "@/lib/models/catalog";
import { describePublicCopy, PUBLIC_COPY, publicCopyOf, type PublicCopy, type PublicVideo } from "./public-copy";
import { absoluteUrl, comparisonPaths } from "./share-link";
import { isShareToken, shareKeyOf, verifyShareToken } from "./share-token";

export type SharedComparisonVideo = {
  /** Its place in the batch: what its public file and still are addressed by. */
  position: number;
  model: { id: string; label: string };
  status: "ready" | "pending" | "unavailable";
  /** The file it plays, when ready. */
  video: PublicVideo | null;
  paths: { video: string; still: string } | null;
  picked: boolean;
};

export type SharedComparison = {
  /** Null when the owner chose to hide it. */
  prompt: string | null;
  videos: SharedComparisonVideo[];
  /** The page, absolute (link previews), and the still a preview shows: the pick's, else the first ready video's. */
  urls: { page: string; image: string | null };
  paths: { page: string };
  sharedAt: string;
};

const COPY_ON_ITS_WAY = new Set(["PENDING", "COPYING"]);

async function findShare(token: string) {
  if (!isShareToken(token)) return null;
  const row = await prisma.batch.findUnique({
    where: { shareKey: shareKeyOf(token) },
    select: {
      id: true,
      prompt: true,
      pickId: true,
      shareSeed: true,
      shareShowsPrompt: true,
      sharedAt: true,
      // Every video, deleted ones too: a video's place never shifts when another is deleted.
      generations: {
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true, model: true, state: true, deletedAt: true, mediaCopies: { where: { position: 0 }, select: PUBLIC_COPY } },
      },
    },
  });
  if (!row || !row.sharedAt) return null;
  if (!verifyShareToken(token, { batchId: row.id, seed: row.shareSeed }, env.WEBHOOK_SECRET)) return null;
  // A link lives while a video of it plays or may still: all deleted, failed, or their copies removed
  // (MEDIA_RETENTION_DAYS), it ends, as a shared video's does.
  if (row.generations.every((g) => g.deletedAt || statusOf(g, playableCopy(g)) === "unavailable")) return null;
  return row;
}

type ShareRow = NonNullable<Awaited<ReturnType<typeof findShare>>>;

/** The copy a video of the comparison serves publicly, or null (deleted, not Ready, not stored). */
function playableCopy(generation: ShareRow["generations"][number]): PublicCopy | null {
  if (generation.deletedAt || generation.state !== "SUCCESS") return null;
  return publicCopyOf(generation.mediaCopies.filter((c) => c.state === "DONE"));
}

function statusOf(generation: ShareRow["generations"][number], copy: PublicCopy | null): SharedComparisonVideo["status"] {
  if (copy) return "ready";
  if (generation.state === "SUBMITTING" || generation.state === "PENDING") return "pending";
  if (generation.state === "SUCCESS" && generation.mediaCopies.some((c) => COPY_ON_ITS_WAY.has(c.state))) return "pending";
  // Ready a moment ago: its copy job is not written yet.
  if (generation.state === "SUCCESS" && generation.mediaCopies.length === 0 && env.MEDIA_STORAGE !== "none") return "pending";
  return "unavailable";
}

export async function findSharedComparison({ token }: { token: string }): Promise<SharedComparison | null> {
  const row = await findShare(token);
  if (!row) return null;
  const paths = comparisonPaths(token);
  const videos: SharedComparisonVideo[] = [];
  row.generations.forEach((generation, position) => {
    if (generation.deletedAt) return;
    const copy = playableCopy(generation);
    videos.push({
      position,
      model: { id: generation.model, label: findModel(generation.model)?.label ?? generation.model },
      status: statusOf(generation, copy),
      video: copy ? describePublicCopy(copy) : null,
      paths: copy ? { video: paths.video(position), still: paths.still(position) } : null,
      picked: generation.id === row.pickId,
    });
  });
  const preview = videos.find((v) => v.picked && v.video?.hasStill) ?? videos.find((v) => v.video?.hasStill);
  return {
    prompt: row.shareShowsPrompt ? row.prompt : null,
    videos,
    urls: { page: absoluteUrl(paths.page), image: preview?.paths ? absoluteUrl(preview.paths.still) : null },
    paths: { page: paths.page },
    sharedAt: row.sharedAt!.toISOString(),
  };
}

/** The copy at `position` of a shared comparison, or a 404 for anything else (a malformed position included). */
async function findSharedCopy(token: string, position: string): Promise<PublicCopy> {
  // A place in the batch, written as the pages write it (no sign, no leading zero); any other is a 404 unread.
  const row = /^(?:0|[1-9][0-9]{0,2})$/.test(position) ? await findShare(token) : null;
  const generation = row?.generations[Number(position)];
  const copy = generation ? playableCopy(generation) : null;
  if (!copy) throw new AppError("not_found", "No such shared video.");
  return copy;
}

/** A video of the comparison: byte ranges on the local disk, a one-minute signed redirect on S3 (as a shared video's). */
export async function serveComparisonVideo({ token, position, request }: { token: string; position: string; request: Request }): Promise<Response> {
  return serveCopy({ copy: await findSharedCopy(token, position), request, audience: "public" });
}

/** A video's still: its poster, and the comparison's link preview image. */
export async function serveComparisonStill({ token, position, request }: { token: string; position: string; request: Request }): Promise<Response> {
  return serveStill({ copy: await findSharedCopy(token, position), request, audience: "public" });
}
