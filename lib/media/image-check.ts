// An uploaded image, checked and rewritten with sharp (libvips, installed by
// npm as prebuilt per-platform packages): no FFmpeg needed. Read top to
// bottom: the first bytes must be the format the sniff named (so libvips
// never picks another loader) → the header's size, read without decoding,
// against a pixel bound → decode (bounded in pixels, in time, refusing
// truncated or corrupt data), turned upright from its EXIF orientation,
// re-encoded with no metadata at all (EXIF, GPS, XMP, ICC, text chunks and
// anything appended are gone).
//
// sharp's settings are process-wide; this module sets them once, at import:
// - only the PNG, JPEG and WebP loaders (from a file or a buffer) may run
//   (`sharp.block`): nothing can reach libvips' SVG, PDF, TIFF, HEIF, GIF or
//   other loaders;
// - one libvips thread per image (`sharp.concurrency(1)`, as FFmpeg ran with
//   `-threads 1`): how many images decode at once is the media pool's to
//   bound (each decode takes a slot of it), not libvips';
// - no operation cache (`sharp.cache(false)`): an upload is read once, so a
//   cache would only hold strangers' decoded pixels in memory.
// The kit uses sharp nowhere else (no next/image); a fork that adds
// next/image in the same process must unblock the loaders it needs.
// sharp works on libuv's thread pool, not on the JavaScript thread. On glibc
// each pool thread that decoded an image keeps its malloc arena (about 75 MB
// after a 12 MP photo): docs/media-toolchain.md has the figures and the
// MALLOC_ARENA_MAX setting that bounds them.
import "server-only";
import fs from "node:fs";
import sharp, { type Metadata } from "sharp";
import { FORMAT_LABEL, type ImageFormat } from "@/lib/models/media-limits";
import { hashFile } from "./hash-file.mjs";
import { mediaBusy, mediaPool } from "./media-pool";
import { readHead, sniffFormat } from "./sniff";

sharp.block({ operation: ["VipsForeignLoad"] });
sharp.unblock({
  operation: ["VipsForeignLoadPngFile", "VipsForeignLoadPngBuffer", "VipsForeignLoadJpegFile", "VipsForeignLoadJpegBuffer", "VipsForeignLoadWebpFile", "VipsForeignLoadWebpBuffer"],
});
sharp.concurrency(1);
sharp.cache(false);

/** Decoding and re-encoding one image longer than this is cut (sharp counts whole seconds). */
export const IMAGE_TIMEOUT_SECONDS = 20;

export type ImageHeader = {
  format: ImageFormat;
  /** As the image is shown: its EXIF orientation applied (a phone's portrait photo is taller than wide). */
  width: number;
  height: number;
  /** The EXIF orientation, 1 (upright) to 8; 1 when there is none. */
  orientation: number;
};

export type ImageRefusal = {
  ok: false;
  /**
   * `wrong_format`: the bytes are not the format expected; `header`: no size
   * can be read; `too_many_pixels`: the header claims more than the bound;
   * `damaged`: decoding failed (truncated, corrupt).
   */
  reason: "wrong_format" | "header" | "too_many_pixels" | "damaged";
  message: string;
};

/**
 * What the header says, read without decoding a pixel, after checking that
 * the file starts as `format` does; refused when the header cannot be read or
 * claims more than `maxPixels` (a decoder would allocate width × height).
 */
export async function readImageHeader({ file, format, maxPixels }: { file: string; format: ImageFormat; maxPixels: number }): Promise<({ ok: true } & ImageHeader) | ImageRefusal> {
  const label = FORMAT_LABEL[format];
  const sniffed = sniffFormat(await readHead(file));
  if (!("format" in sniffed) || sniffed.format !== format) {
    return { ok: false, reason: "wrong_format", message: `This file is not a ${label} image (its contents say so, whatever its name).` };
  }
  let metadata: Metadata;
  try {
    // A header read allocates no pixels: the bound is checked below, with its own words.
    metadata = await sharp(file, { failOn: "error", limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, reason: "header", message: `This ${label} image's header cannot be read: the file is damaged.` };
  }
  if (metadata.format !== format) {
    return { ok: false, reason: "wrong_format", message: `This file is not a ${label} image (its contents say so, whatever its name).` };
  }
  const { width, height } = metadata;
  if (!width || !height) return { ok: false, reason: "header", message: `This ${label} image's header cannot be read: the file is damaged.` };
  if (width * height > maxPixels) {
    return { ok: false, reason: "too_many_pixels", message: `This image claims ${width} × ${height} px; images over ${maxPixels / 1_000_000} megapixels are refused unread.` };
  }
  const orientation = metadata.orientation ?? 1;
  const turned = orientation >= 5 && orientation <= 8;
  return { ok: true, format, width: turned ? height : width, height: turned ? width : height, orientation };
}

/**
 * Decodes `input` (a `format` image) and writes it anew to `output` in the
 * same format, upright and with no metadata: the image branch of an upload's
 * rewrite. The header is checked first (readImageHeader), so a file that
 * claims too many pixels is refused before anything decodes it. The decode
 * takes a slot of the media pool (callers must not wrap it in another), and
 * throws the pool's busy error when no slot came in time or it outlived
 * `timeoutSeconds`. Returns the written file's size and SHA-256, as the
 * container worker's remux does (hashed after the pool's slot is given back).
 */
export async function reencodeImage({
  input,
  output,
  format,
  maxPixels,
  timeoutSeconds = IMAGE_TIMEOUT_SECONDS,
}: {
  input: string;
  output: string;
  format: ImageFormat;
  maxPixels: number;
  timeoutSeconds?: number;
}): Promise<({ ok: true; bytes: number; sha256: string } & ImageHeader) | ImageRefusal> {
  const header = await readImageHeader({ file: input, format, maxPixels });
  if (!header.ok) return header;
  const written = await mediaPool().run(async () => {
    const image = sharp(input, {
      // The decoder itself is bounded too: a header that lied about its size still cannot make it allocate more.
      limitInputPixels: maxPixels,
      // Truncated or corrupt data is an error, not a picture with a grey bottom half.
      failOn: "error",
      // The first frame of an animated WebP or PNG, as a still.
      pages: 1,
      sequentialRead: true,
      autoOrient: true,
    }).timeout({ seconds: Math.max(1, Math.ceil(timeoutSeconds)) });
    // A grey or paletted image stays so: written as RGB it would be up to three times larger (and count so against the quotas).
    const { space, isPalette } = await sharp(input).metadata();
    if (space === "b-w") image.toColourspace("b-w");
    const encoded = format === "png" ? image.png({ palette: isPalette === true }) : format === "jpeg" ? image.jpeg({ quality: 90 }) : image.webp({ quality: 90 });
    try {
      const info = await encoded.toFile(output);
      return { ...header, ok: true as const, width: info.width, height: info.height, bytes: info.size };
    } catch (error) {
      await fs.promises.rm(output, { force: true });
      // Past its time the server is too loaded to say anything about the file.
      if (error instanceof Error && /timeout/i.test(error.message)) throw mediaBusy();
      return { ok: false as const, reason: "damaged" as const, message: `This ${FORMAT_LABEL[format]} file is damaged: it could not be read through.` };
    }
  });
  return written.ok ? { ...written, sha256: await hashFile(output) } : written;
}
