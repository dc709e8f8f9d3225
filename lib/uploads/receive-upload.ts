// Receiving an upload, read top to bottom: which model field it is for →
// reserve its bytes against the quotas → stream the body to a temporary file,
// cut at the field's size limit (or, for a body of unknown size, at the room reserved)
// → sniff the type from the bytes → read the size (images: from the header,
// before any decoder runs) or the container (videos: its packets, read
// through) → check it all against the model → rewrite it without metadata
// (images re-encoded, videos remuxed, by the toolchain's npm packages: no
// FFmpeg needed) → store → record in place
// of the reservation. Every refusal is an AppError keyed by the field, the
// shape the form and the JSON API share; a refused file leaves nothing behind
// and gives its reservation back.
import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isUniqueViolation } from "@/lib/database/errors";
import { env } from "@/lib/env";
import { AppError, type ErrorCode } from "@/lib/errors";
import { findMediaField, findModel, type MediaFieldSpec, type ModelSpec } from "@/lib/models/catalog";
import { FORMAT_CONTENT_TYPE, FORMAT_LABEL, formatBytes, isVideoFormat, mediaProblems, type ImageFormat, type MediaFacts, type MediaFormat, type VideoFormat } from "@/lib/models/media-limits";
import { markupScanner, sniffFormat, SNIFF_BYTES } from "@/lib/media/sniff";
import { getMediaStorage } from "@/lib/storage/storage";
import { containerRefusalMessage, probeVideoContainer, readImageHeader, reencodeImage, remuxVideoContainer, videoFactsFromProbe } from "@/lib/media/toolchain";
import type { UploadClient } from "./upload-quota";
import { newUploadId, recordUpload, releaseUploadReservation, reserveUpload, uploadStorageKey, type Upload } from "./upload-store";
import { traced } from "@/lib/traces/tracing";

/** What is read and dropped past a file's limit (or of a body refused unread) before the connection is cut. */
export const DISCARD_MAX_BYTES = 1024 * 1024;

/** A decoder allocates width × height pixels: past this (40 MP, a 160 MB frame) a file is refused unread. */
export const MAX_DECODE_PIXELS = 40_000_000;

export type UploadView = Pick<Upload, "id" | "model" | "field" | "format" | "contentType" | "size" | "width" | "height" | "durationSeconds" | "fps" | "codec" | "sha256" | "createdAt">;

/** An upload's bytes, checked against its model's limits (a span of its own: the uploads' checks). */
export function receiveUpload(args: ReceiveArgs): Promise<UploadView> {
  const id = args.id ?? newUploadId();
  const attributes = { "framehook.upload.id": id, "framehook.owner.id": args.ownerId, ...(args.modelId ? { "framehook.model": args.modelId } : {}) };
  return traced("upload.check", { attributes }, async (span) => {
    const upload = await receive({ ...args, id });
    span.set({ "framehook.upload.format": upload.format, "framehook.upload.bytes": upload.size });
    return upload;
  });
}

type ReceiveArgs = {
  ownerId: string;
  modelId: string | null;
  fieldName: string | null;
  body: Readable;
  /** The request's Content-Length, if it sent one. */
  declaredBytes: number | null;
  /** The client it came from, when a request brought it: an anonymous one counts against its address's quota. */
  client?: UploadClient | null;
  /** The upload's id, when one was handed out before the bytes came (a presigned post). */
  id?: string;
};

async function receive({ ownerId, modelId, fieldName, body, declaredBytes, client = null, id }: ReceiveArgs & { id: string }): Promise<UploadView> {
  const { model, field } = mediaFieldOf(modelId, fieldName);
  const refuse = (code: ErrorCode, message: string) => new AppError(code, message, { [field.name]: [message] });
  const limits = field.limits;
  if (declaredBytes !== null && declaredBytes > limits.maxBytes) {
    throw refuse("payload_too_large", `This file is ${formatBytes(declaredBytes)}; ${model.label} takes up to ${formatBytes(limits.maxBytes)}.`);
  }
  const storage = await getMediaStorage();
  if (!storage) throw new AppError("storage_unavailable", "Uploads are off on this server (MEDIA_STORAGE=none).");

  // Room in every quota, taken before a byte is read; given back below unless the upload is recorded.
  const clientKey = client?.anonymous ? client.key : null;
  const reserved = await reserveUpload({ id, ownerId, clientKey, bytes: declaredBytes, maxBytes: limits.maxBytes }).catch((error: unknown) => {
    throw error instanceof AppError ? new AppError(error.code, error.message, { [field.name]: [error.message] }, error.headers) : error;
  });
  // A body of unknown size may take what was reserved, and no more.
  const maxBytes = Math.min(limits.maxBytes, declaredBytes ?? reserved);
  let recorded = false;
  let dir: string | undefined;
  try {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-upload-"));
    // 1. The bytes, to disk, never more than the limit, scanned for markup on the way.
    const received = path.join(dir, "received");
    const markup = markupScanner();
    let size = 0;
    let head = Buffer.alloc(0);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        // Past the limit nothing more is written: a little more is read and
        // dropped (up to DISCARD_MAX_BYTES), then the body is cut.
        if (size > maxBytes) return done(size > maxBytes + DISCARD_MAX_BYTES ? new TooLarge() : null);
        if (head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        markup.push(chunk);
        done(null, chunk);
      },
    });
    const tooLarge = () =>
      maxBytes < limits.maxBytes
        ? refuse("upload_quota", `This file is over the ${formatBytes(maxBytes)} left for your uploads; unused ones are deleted after ${env.UPLOAD_UNUSED_HOURS} h.`)
        : refuse("payload_too_large", `This file is over ${formatBytes(limits.maxBytes)}; ${model.label} takes up to ${formatBytes(limits.maxBytes)}.`);
    try {
      await pipeline(body, counter, fs.createWriteStream(received));
    } catch (error) {
      if (error instanceof TooLarge) throw tooLarge();
      throw new AppError("bad_request", "The upload was cut off before it finished.");
    }
    if (size > maxBytes) throw tooLarge();
    if (size === 0) throw refuse("invalid_input", "The file is empty.");

    // 2. What it is, from its bytes.
    const sniffed = sniffFormat(head);
    if ("refused" in sniffed) {
      throw refuse(
        "unsupported_media_type",
        sniffed.refused === "markup"
          ? "SVG, HTML and other markup files are not accepted: upload a PNG, JPEG or WebP image, or an MP4, QuickTime or WebM video."
          : "This file is not a PNG, JPEG, WebP, MP4, QuickTime or WebM file (its contents say so, whatever its name).",
      );
    }
    const { format } = sniffed;
    if (markup.found) throw refuse("unsupported_media_type", `This ${FORMAT_LABEL[format]} file also holds HTML or script: refused.`);
    const problemsOf = (facts: MediaFacts) => mediaProblems({ facts, limits, modelLabel: model.label });
    if (!(limits.formats as readonly MediaFormat[]).includes(format)) {
      // Only the format is named: nothing else about a file of the wrong kind matters.
      throw refuse("unsupported_media_type", problemsOf({ format, size, width: 1, height: 1, durationSeconds: null, fps: null })[0]!);
    }

    // 3. Its size and length, checked against the model before anything decodes it whole.
    const facts = isVideoFormat(format) ? await videoFacts(received, format, size, refuse) : await imageFacts(received, format, size, refuse);
    const problems = problemsOf(facts);
    if (problems.length) throw refuse("invalid_input", problems.join(" "));

    // 4. Rewritten without metadata (EXIF GPS, text chunks, trailing bytes), then stored and recorded.
    const clean = path.join(dir, `clean.${format}`);
    const { bytes, sha256 } = await rewrite(received, clean, format, refuse);
    const storageKey = uploadStorageKey(id);
    const contentType = FORMAT_CONTENT_TYPE[format];
    await storage.putFile({ key: storageKey, file: clean, contentType });
    try {
      const row = await recordUpload({
        data: {
          id,
          ownerId,
          clientKey,
          model: model.id,
          field: field.name,
          format,
          contentType,
          size: bytes,
          width: facts.width,
          height: facts.height,
          durationSeconds: facts.durationSeconds,
          fps: facts.fps,
          codec: "codec" in facts ? (facts.codec as string) : null,
          sha256,
          storageKey,
        },
      });
      recorded = true;
      return toUploadView(row);
    } catch (error) {
      // A twin request that recorded the same id first owns the object now.
      if (!isUniqueViolation(error)) await storage.delete({ key: storageKey }).catch(() => undefined);
      if (error instanceof AppError) throw new AppError(error.code, error.message, { [field.name]: [error.message] }, error.headers);
      throw error;
    }
  } finally {
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
    if (!recorded) await releaseUploadReservation({ id });
  }
}

export function toUploadView(row: Upload): UploadView {
  const { id, model, field, format, contentType, size, width, height, durationSeconds, fps, codec, sha256, createdAt } = row;
  return { id, model, field, format, contentType, size, width, height, durationSeconds, fps, codec, sha256, createdAt };
}

class TooLarge extends Error {}

/**
 * Reads and drops what is left of a refused upload's body (up to
 * DISCARD_MAX_BYTES, then cuts it): an HTTP/1.1 client still sending would
 * otherwise never read the answer, or leave its connection unusable.
 */
export async function discardRest(body: Readable): Promise<void> {
  if (body.destroyed || body.readableEnded) return;
  let dropped = 0;
  try {
    for await (const chunk of body) {
      dropped += (chunk as Buffer).length;
      if (dropped > DISCARD_MAX_BYTES) return void body.destroy();
    }
  } catch {
    // A body the client cut: nothing left to drop.
  }
}

type Refuse = (code: ErrorCode, message: string) => AppError;

export function mediaFieldOf(modelId: string | null, fieldName: string | null): { model: ModelSpec; field: MediaFieldSpec } {
  const model = modelId ? findModel(modelId) : undefined;
  if (!model) throw new AppError("invalid_input", "Say which model the file is for (?model=…).", { model: ["Choose one of the listed models"] });
  const field = fieldName ? findMediaField(model, fieldName) : undefined;
  if (!field) {
    const names = model.fields.filter((f) => findMediaField(model, f.name)).map((f) => f.name);
    throw new AppError("invalid_input", names.length ? `Say which input the file is for (?field=${names.join(" or ")}).` : `${model.label} takes no files.`, { field: [names.length ? `One of ${names.join(", ")}` : "This model takes no files"] });
  }
  return { model, field };
}

async function imageFacts(file: string, format: ImageFormat, size: number, refuse: Refuse): Promise<MediaFacts> {
  // The header alone, pixels unread: a file that claims too many is refused before anything decodes it.
  const header = await readImageHeader({ file, format, maxPixels: MAX_DECODE_PIXELS });
  if (!header.ok) throw refuse(header.reason === "wrong_format" ? "unsupported_media_type" : "invalid_input", header.message);
  return { format, size, width: header.width, height: header.height, durationSeconds: null, fps: null };
}

async function videoFacts(file: string, format: VideoFormat, size: number, refuse: Refuse): Promise<MediaFacts & { codec: string }> {
  const probe = await probeVideoContainer({ file, format });
  if (!probe.ok) throw refuse("invalid_input", containerRefusalMessage(probe, format));
  // The header's length against the frames really there: a forged or truncated file disagrees.
  const checked = videoFactsFromProbe({ probe, format, size, maxPixels: MAX_DECODE_PIXELS });
  if (!checked.ok) throw refuse("invalid_input", checked.message);
  return checked.facts;
}

/**
 * Writes the file anew to `output` with nothing but its pictures (and a
 * clip's sound), or refuses it with the reason; returns the written file's
 * size and SHA-256 (a clip's hashed by the worker that wrote it).
 */
async function rewrite(input: string, output: string, format: MediaFormat, refuse: Refuse): Promise<{ bytes: number; sha256: string }> {
  if (isVideoFormat(format)) {
    const remuxed = await remuxVideoContainer({ input, output, format });
    if (!remuxed.ok) throw refuse("invalid_input", containerRefusalMessage(remuxed, format));
    return remuxed;
  }
  const reencoded = await reencodeImage({ input, output, format, maxPixels: MAX_DECODE_PIXELS });
  if (!reencoded.ok) throw refuse(reencoded.reason === "wrong_format" ? "unsupported_media_type" : "invalid_input", reencoded.message);
  return reencoded;
}
