// "Use last frame as first frame": a frame of one of the owner's stored
// results becomes an upload, taken from the kit's own copy (never the
// gateway's expiring link) and checked like any uploaded file.
import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { MODELS } from "@/lib/models/catalog";
import { receiveUpload, type UploadView } from "./receive-upload";
import { getMediaStorage } from "./storage";
import { extractFrame } from "./toolchain";

/** The model a frame continues into, and the field it fills. */
export const FRAME_TARGET = { model: MODELS.find((m) => m.kind === "first-last-frame")!.id, field: "first_frame_url" };

export async function uploadFrameOfResult({ generationId, which, ownerId }: { generationId: string; which: "first" | "last"; ownerId: string }): Promise<UploadView> {
  const copy = await prisma.mediaCopy.findFirst({
    where: { generationId, state: "DONE", generation: { ownerId } },
    orderBy: { position: "asc" },
    select: { storageKey: true },
  });
  const storage = await getMediaStorage();
  if (!copy || !storage) throw new AppError("not_found", "This video is not kept here yet: try again once it is stored.");
  const object = await storage.get({ key: copy.storageKey });
  if (!object) throw new AppError("not_found", "The stored video is missing.");
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-frame-"));
  try {
    const video = path.join(dir, "video");
    let size = 0;
    const capped = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > env.MEDIA_MAX_BYTES ? new Error("stored video over MEDIA_MAX_BYTES") : null, chunk);
      },
    });
    await pipeline(object.body, capped, fs.createWriteStream(video));
    const frame = path.join(dir, "frame.png");
    if (!(await extractFrame({ file: video, which, output: frame }))) throw new AppError("invalid_input", "No frame could be read from this video.");
    const { size: frameBytes } = await fs.promises.stat(frame);
    return await receiveUpload({ ownerId, modelId: FRAME_TARGET.model, fieldName: FRAME_TARGET.field, body: fs.createReadStream(frame), declaredBytes: frameBytes });
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
