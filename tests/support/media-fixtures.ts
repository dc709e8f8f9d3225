// Media files for upload tests, made at test time with the system's FFmpeg
// (the same toolchain the app uses) or written byte by byte: good ones, and
// the hostile ones an upload route must refuse.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** FFmpeg is on PATH: without it, what needs these fixtures is skipped (shown as skipped), never failed. */
export const hasFfmpeg = spawnSync("ffmpeg", ["-version"], { stdio: "ignore" }).status === 0;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-fixtures-"));
let counter = 0;
const tmp = (ext: string) => path.join(dir, `f${++counter}.${ext}`);
const ffmpeg = (args: string[]) => execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });

/** A real image of that size, `marker` hidden in a metadata chunk (EXIF-like APP1 for JPEG, tEXt for PNG). */
export function image({ width = 640, height = 480, format = "png", marker, noise = false }: { width?: number; height?: number; format?: "png" | "jpeg"; marker?: string; noise?: boolean } = {}): Buffer {
  const file = tmp(format === "png" ? "png" : "jpg");
  // Noise does not compress: a PNG of it weighs about width × height bytes.
  const noiseFile = noise ? tmp("gray") : "";
  if (noise) fs.writeFileSync(noiseFile, randomBytes(width * height));
  const source = noise ? ["-f", "rawvideo", "-pix_fmt", "gray", "-s", `${width}x${height}`, "-i", noiseFile] : ["-f", "lavfi", "-i", `testsrc=size=${width}x${height}:rate=1`];
  ffmpeg([...source, "-frames:v", "1", ...(format === "jpeg" ? ["-q:v", "4"] : []), file]);
  const bytes = fs.readFileSync(file);
  if (!marker) return bytes;
  if (format === "jpeg") {
    // An APP1 "Exif" segment carrying the marker, as a phone's GPS block would.
    const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), Buffer.from(`GPS ${marker}`, "latin1")]);
    const segment = Buffer.concat([Buffer.from([0xff, 0xe1]), u16(payload.length + 2), payload]);
    return Buffer.concat([bytes.subarray(0, 2), segment, bytes.subarray(2)]);
  }
  const text = Buffer.from(`Comment\0${marker}`, "latin1");
  const chunk = Buffer.concat([u32(text.length), Buffer.from("tEXt"), text, u32(0)]);
  return Buffer.concat([bytes.subarray(0, 33), chunk, bytes.subarray(33)]);
}

/** An H.264 MP4 clip (index first unless `faststart` is false). */
export function clip({ seconds = 2, width = 640, height = 360, fps = 24, faststart = true }: { seconds?: number; width?: number; height?: number; fps?: number; faststart?: boolean } = {}): Buffer {
  const file = tmp("mp4");
  ffmpeg(["-f", "lavfi", "-i", `testsrc=size=${width}x${height}:rate=${fps}`, "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", ...(faststart ? ["-movflags", "+faststart"] : []), file]);
  return fs.readFileSync(file);
}

/** A real short clip whose movie header (mvhd) claims `seconds`. */
export function clipClaiming(seconds: number): Buffer {
  const bytes = Buffer.from(clip({ seconds: 1 }));
  const at = bytes.indexOf("mvhd");
  const version = bytes[at + 4]!;
  if (version !== 0) throw new Error("expected a version-0 mvhd");
  const timescale = bytes.readUInt32BE(at + 4 + 4 + 8);
  bytes.writeUInt32BE(timescale * seconds, at + 4 + 4 + 12);
  // The track's own header and media header claim it too, as a forger would make them.
  for (const box of ["tkhd", "mdhd"]) {
    const b = bytes.indexOf(box);
    if (box === "mdhd") bytes.writeUInt32BE(bytes.readUInt32BE(b + 4 + 4 + 8) * seconds, b + 4 + 4 + 12);
    else bytes.writeUInt32BE(timescale * seconds, b + 4 + 4 + 16);
  }
  return bytes;
}

/** The first part of a clip, as an upload cut off mid-way would leave it. */
export const truncated = (bytes: Buffer, keep = 0.4) => bytes.subarray(0, Math.floor(bytes.length * keep));

/** A PNG whose header claims width × height, with a token body: a decompression bomb as far as the header goes. */
export function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32(width), u32(height), Buffer.from([8, 2, 0, 0, 0])]);
  const chunk = (type: string, data: Buffer) => Buffer.concat([u32(data.length), Buffer.from(type, "latin1"), data, u32(0)]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", Buffer.alloc(64)), chunk("IEND", Buffer.alloc(0))]);
}

export const svgWithScript = () => Buffer.from(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="512" height="512"><script>alert(document.cookie)</script></svg>`);

/** A valid PNG with an HTML page appended: an image to a decoder, a page to a sniffing browser. */
export const polyglot = () => Buffer.concat([image(), Buffer.from("<html><body><script>alert(document.cookie)</script></body></html>")]);

export const plainText = () => Buffer.from("just some notes, saved as frame.png\n".repeat(20));

function u32(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
function u16(n: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
