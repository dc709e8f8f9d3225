// What a public link opens, for anyone holding it and nobody else: the
// video's copy, its still, its model and (if the owner left it on) the
// prompt. Never the owner, their other videos, their inputs or what it cost.
// Every request reads the row again (nothing here is cached, in memory or in
// HTTP caches), so a link the owner stopped sharing, a deleted video and a
// deleted account answer 404 at once on every instance.
//   token malformed, unknown, or not this share's  → null (404)
//   shared, Ready, not deleted, copy stored        → the video
import "server-only";
import { serveCopy, serveStill } from "@/lib/copies/serve-media";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { findModel } from "@/lib/models/catalog";
import { describePublicCopy, PUBLIC_COPIES, publicCopyOf, type PublicVideo } from "./public-copy";
import { absoluteUrl, sharePaths } from "./share-link";
import { isShareToken, shareKeyOf, verifyShareToken } from "./share-token";

export type SharedVideo = {
  model: { id: string; label: string };
  /** Null when the owner chose to hide it. */
  prompt: string | null;
  video: PublicVideo;
  /** The public routes: absolute (`urls`) for link previews, which need them; `paths` for the app's own pages. */
  urls: { page: string; video: string; still: string; embed: string };
  paths: { page: string; video: string; still: string; embed: string };
  sharedAt: string;
};

async function findShare(token: string) {
  if (!isShareToken(token)) return null;
  const row = await prisma.generation.findUnique({
    where: { shareKey: shareKeyOf(token) },
    select: {
      id: true,
      model: true,
      prompt: true,
      state: true,
      deletedAt: true,
      shareSeed: true,
      shareShowsPrompt: true,
      sharedAt: true,
      mediaCopies: PUBLIC_COPIES,
    },
  });
  if (!row || row.state !== "SUCCESS" || row.deletedAt || !row.sharedAt) return null;
  if (!verifyShareToken(token, { generationId: row.id, seed: row.shareSeed }, env.WEBHOOK_SECRET)) return null;
  const copy = publicCopyOf(row.mediaCopies);
  return copy ? { row, copy } : null;
}

export async function findSharedVideo({ token }: { token: string }): Promise<SharedVideo | null> {
  const share = await findShare(token);
  if (!share) return null;
  const { row, copy } = share;
  const paths = sharePaths(token);
  return {
    model: { id: row.model, label: findModel(row.model)?.label ?? row.model },
    prompt: row.shareShowsPrompt ? row.prompt : null,
    video: describePublicCopy(copy),
    urls: { page: absoluteUrl(paths.page), video: absoluteUrl(paths.video), still: absoluteUrl(paths.still), embed: absoluteUrl(paths.embed) },
    paths,
    sharedAt: row.sharedAt!.toISOString(),
  };
}

/** The shared video's bytes (ranges on the local disk, a one-minute signed redirect on S3), or 404. */
export async function serveSharedVideo({ token, request }: { token: string; request: Request }): Promise<Response> {
  const share = await findShare(token);
  if (!share) throw new AppError("not_found", "No such shared video.");
  return serveCopy({ copy: share.copy, request, audience: "public" });
}

/** The shared video's still (link previews' image, the player's poster), or 404. */
export async function serveSharedStill({ token, request }: { token: string; request: Request }): Promise<Response> {
  const share = await findShare(token);
  if (!share) throw new AppError("not_found", "No such shared video.");
  return serveStill({ copy: share.copy, request, audience: "public" });
}
