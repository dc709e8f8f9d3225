// Continuing from a result: a frame (first or last) or the whole video of one
// of the owner's stored results becomes an upload, taken from the kit's own
// copy (never the gateway's expiring link) and checked like any uploaded
// file. A frame needs FFmpeg; without it the answer is a 503 that names the
// doctor. Also the list of results the form's "From my gallery" picker offers.
import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { isRecord, safeJsonParse } from "@/lib/http/json";
import { MODELS } from "@/lib/models/catalog";
import { FRAME_TARGET } from "@/lib/models/continue-targets";
import { toolchainMissing } from "@/lib/media/frame-support";
import { receiveUpload, type UploadView } from "./receive-upload";
import { getMediaStorage } from "@/lib/storage/storage";
import { OPAQUE_CONTENT_TYPE } from "@/lib/copies/media-copy";
import { extractFrame, ToolchainMissingError } from "@/lib/media/toolchain";

export const RESULT_TAKES = ["first-frame", "last-frame", "video"] as const;
export type ResultTake = (typeof RESULT_TAKES)[number];

export { FRAME_TARGET };

/** Where a result's video goes by default: the first reference model that takes a clip that long, those with a known price first. */
export function videoTarget(durationSeconds: number | null): { model: string; field: string } {
  const references = MODELS.filter((m) => m.kind === "reference-to-video").sort((a, b) => Number(a.usdPerSecond === null) - Number(b.usdPerSecond === null));
  const fits = references.find((m) => m.fields.some((f) => f.type === "video-list" && f.limits.maxDurationSeconds >= (durationSeconds ?? 0)));
  return { model: (fits ?? references[0]!).id, field: "reference_video_urls" };
}

export async function uploadFromResult({
  generationId,
  take,
  ownerId,
  target,
}: {
  generationId: string;
  take: ResultTake;
  ownerId: string;
  /** The model field it is for; by default, the first-and-last-frame model's first frame, or a reference model. */
  target?: { model: string; field: string };
}): Promise<{ upload: UploadView; model: string; field: string }> {
  const copy = await prisma.mediaCopy.findFirst({
    where: { generationId, state: "DONE", generation: { ownerId, deletedAt: null } },
    orderBy: { position: "asc" },
    select: { storageKey: true, contentType: true, generation: { select: { input: true } } },
  });
  const storage = await getMediaStorage();
  if (!copy || !storage) throw new AppError("not_found", "This video is not kept here yet: try again once it is stored.");
  const { model, field } = target ?? (take === "video" ? videoTarget(durationOf(copy.generation.input)) : FRAME_TARGET);
  // What the copy is was read from its bytes when it was stored: only a video reaches the decoder.
  if (take !== "video" && copy.contentType === OPAQUE_CONTENT_TYPE) {
    throw new AppError("invalid_input", "This result is stored as a file, not as an MP4, QuickTime or WebM video: no frame can be taken from it.");
  }
  const missing = () => new AppError("not_found", "The stored video is missing.");
  if (take === "video") {
    const object = await storage.get({ key: copy.storageKey });
    if (!object) throw missing();
    // The copy itself, through the same checks (limits of the model field, remux).
    const upload = await receiveUpload({ ownerId, modelId: model, fieldName: field, body: object.body, declaredBytes: object.size }).finally(() => object.body.destroy());
    return { upload, model, field };
  }
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-frame-"));
  try {
    const video = path.join(dir, "video");
    if (!(await storage.getFile({ key: copy.storageKey, file: video, maxBytes: env.MEDIA_MAX_BYTES }))) throw missing();
    const frame = path.join(dir, "frame.png");
    const which = take === "first-frame" ? "first" : "last";
    const extracted = await extractFrame({ file: video, which, output: frame }).catch((error: unknown) => {
      // No FFmpeg here: the request cannot be served, and the doctor says how to fix it.
      throw error instanceof ToolchainMissingError ? toolchainMissing() : error;
    });
    if (!extracted) throw new AppError("invalid_input", "No frame could be read from this video.");
    const { size: frameBytes } = await fs.promises.stat(frame);
    const upload = await receiveUpload({ ownerId, modelId: model, fieldName: field, body: fs.createReadStream(frame), declaredBytes: frameBytes });
    return { upload, model, field };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

export type ResultSource = {
  id: string;
  prompt: string;
  model: string;
  durationSeconds: number | null;
  stillUrl: string | null;
  /** The stored copy, for a browser that takes the frame itself (a server without FFmpeg). */
  videoUrl: string;
  createdAt: string;
};

/** The owner's Ready results with a stored copy, newest first: what the form's gallery picker offers. */
export async function listResultSources({ ownerId, take = 24 }: { ownerId: string; take?: number }): Promise<ResultSource[]> {
  const rows = await prisma.generation.findMany({
    // A copy stored as an opaque file has nothing to continue from.
    where: { ownerId, state: "SUCCESS", deletedAt: null, mediaCopies: { some: { state: "DONE", OR: [{ contentType: null }, { contentType: { not: OPAQUE_CONTENT_TYPE } }] } } },
    orderBy: { createdAt: "desc" },
    take,
    select: {
      id: true,
      prompt: true,
      model: true,
      input: true,
      createdAt: true,
      mediaCopies: { where: { state: "DONE" }, orderBy: { position: "asc" }, take: 1, select: { id: true, stillKey: true, stillCheckedAt: true } },
    },
  });
  return rows.map((row) => {
    const copy = row.mediaCopies[0]!;
    return {
      id: row.id,
      prompt: row.prompt,
      model: row.model,
      durationSeconds: durationOf(row.input),
      stillUrl: copy.stillKey !== null || copy.stillCheckedAt === null ? `/api/media/${copy.id}/still` : null,
      videoUrl: `/api/media/${copy.id}`,
      createdAt: row.createdAt.toISOString(),
    };
  });
}

function durationOf(input: string): number | null {
  const parsed = safeJsonParse(input);
  const duration = isRecord(parsed) ? parsed.duration : undefined;
  return typeof duration === "number" ? duration : typeof duration === "string" && /^\d+(\.\d+)?$/.test(duration) ? Number(duration) : null;
}
