// The upload checks that need no FFmpeg: images with sharp, video containers
// with mediabunny on a worker thread, started through the same module the app
// will call. Each file goes the way receive-upload takes it (the sniff and the
// markup scan, then the check and the rewrite), and the answer is compared
// with the status and words the route gives today. Images are made here with
// sharp; clips with FFmpeg where it is installed, else only the committed
// simulator sample is read.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readImageHeader, reencodeImage } from "@/lib/media/image-check";
import { isMediaBusy } from "@/lib/media/media-pool";
import { markupScanner, sniffFormat, SNIFF_BYTES } from "@/lib/media/sniff";
import {
  closeVideoContainerWorkers,
  containerRefusalMessage,
  probeVideoContainer,
  remuxVideoContainer,
  videoContainerWorkerCount,
  videoFactsFromProbe,
  warmVideoContainerWorker,
} from "@/lib/media/video-container";
import { FORMAT_LABEL, isVideoFormat } from "@/lib/models/media-limits";
import { clipClaiming, image, pngClaiming, plainText, svgWithScript, truncated } from "@/tests/support/media-fixtures";

const MAX_PIXELS = 40_000_000;
const hasFfmpeg = (() => {
  try {
    execFileSync("ffmpeg", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

let dir: string;
let counter = 0;
const tmp = (ext: string) => path.join(dir, `f${++counter}.${ext}`);

function ffmpegClip(ext: string, args: string[]): Buffer {
  const file = tmp(ext);
  execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, file]);
  return fs.readFileSync(file);
}
const testsrc = (size = "640x360", seconds = 1) => ["-f", "lavfi", "-i", `testsrc2=size=${size}:rate=24:duration=${seconds}`];
const tone = (seconds = 1) => ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`];
const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

/** A JPEG as a phone writes it: sideways pixels with EXIF orientation 6, and a GPS position. */
async function phoneJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 300, channels: 3, background: "#c04020" } })
    .jpeg({ quality: 80 })
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Make: "Framehook test phone" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1", GPSMapDatum: "FRAMEHOOK-GPS-DATUM" } })
    .toBuffer();
}
const plainImage = (format: "png" | "webp", width = 640, height = 480) =>
  sharp({ create: { width, height, channels: 3, background: "#2060a0" } })
    .toFormat(format)
    .toBuffer();

type Verdict = { status: 200; format: string; width: number; height: number; durationSeconds: number | null; output: string } | { status: number; message: string };

/** An upload's bytes taken as receive-upload takes them, with the npm checks where FFmpeg ran (the pool's busy error is thrown through). */
async function checkOnNpmPath(bytes: Buffer): Promise<Verdict> {
  const input = tmp("upload");
  fs.writeFileSync(input, bytes);
  const sniffed = sniffFormat(bytes.subarray(0, SNIFF_BYTES));
  if ("refused" in sniffed) {
    return {
      status: 415,
      message:
        sniffed.refused === "markup"
          ? "SVG, HTML and other markup files are not accepted: upload a PNG, JPEG or WebP image, or an MP4, QuickTime or WebM video."
          : "This file is not a PNG, JPEG, WebP, MP4, QuickTime or WebM file (its contents say so, whatever its name).",
    };
  }
  const { format } = sniffed;
  const markup = markupScanner();
  markup.push(bytes);
  if (markup.found) return { status: 415, message: `This ${FORMAT_LABEL[format]} file also holds HTML or script: refused.` };
  const output = tmp(`clean.${format}`);
  if (!isVideoFormat(format)) {
    const image = await reencodeImage({ input, output, format, maxPixels: MAX_PIXELS });
    if (!image.ok) return { status: image.reason === "wrong_format" ? 415 : 422, message: image.message };
    return { status: 200, format, width: image.width, height: image.height, durationSeconds: null, output };
  }
  const probe = await probeVideoContainer({ file: input, format });
  if (!probe.ok) return { status: 422, message: containerRefusalMessage(probe, format) };
  const facts = videoFactsFromProbe({ probe, format, size: bytes.length, maxPixels: MAX_PIXELS });
  if (!facts.ok) return { status: 422, message: facts.message };
  const remux = await remuxVideoContainer({ input, output, format });
  if (!remux.ok) return { status: 422, message: containerRefusalMessage(remux, format) };
  return { status: 200, format, width: facts.facts.width, height: facts.facts.height, durationSeconds: facts.facts.durationSeconds, output };
}

/** What ffprobe reads in a rewritten clip: its streams and any metadata tags. */
function ffprobe(file: string) {
  const out = execFileSync("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height,nb_frames:stream_tags:stream_side_data:format=format_name:format_tags", "-of", "json", file]);
  return JSON.parse(out.toString()) as {
    streams: { codec_type: string; codec_name: string; width?: number; height?: number; nb_frames?: string; tags?: Record<string, string>; side_data_list?: { rotation?: number }[] }[];
    format: { format_name: string; tags?: Record<string, string> };
  };
}

/** A digest of every decoded video frame: the same pictures in the same order, whatever the container. */
const frameDigests = (file: string) =>
  execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-map", "0:v:0", "-f", "framemd5", "-"])
    .toString()
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => line.split(",").pop()!.trim());

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-npm-media-"));
});
afterAll(async () => {
  await closeVideoContainerWorkers();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("images, with sharp", () => {
  test("a phone's JPEG: turned upright, re-encoded with no EXIF and no GPS left", async () => {
    const photo = await phoneJpeg();
    const before = await sharp(photo).metadata();
    expect(before.orientation).toBe(6);
    expect(before.exif?.includes("FRAMEHOOK-GPS-DATUM")).toBe(true);
    const verdict = await checkOnNpmPath(photo);
    expect(verdict).toMatchObject({ status: 200, format: "jpeg", width: 300, height: 400 });
    if (verdict.status !== 200 || !("output" in verdict)) return;
    const after = await sharp(verdict.output).metadata();
    expect(after).toMatchObject({ format: "jpeg", width: 300, height: 400 });
    expect(after.exif).toBeUndefined();
    expect(after.orientation).toBeUndefined();
    expect(after.icc).toBeUndefined();
    const written = fs.readFileSync(verdict.output);
    expect(written.includes("FRAMEHOOK-GPS-DATUM")).toBe(false);
    expect(written.includes("Framehook test phone")).toBe(false);
  });

  test("the header is read before any decode, with the orientation applied to its size", async () => {
    const file = tmp("jpg");
    fs.writeFileSync(file, await phoneJpeg());
    expect(await readImageHeader({ file, format: "jpeg", maxPixels: MAX_PIXELS })).toEqual({ ok: true, format: "jpeg", width: 300, height: 400, orientation: 6 });
  });

  test.each([["png" as const], ["webp" as const]])("a %s is accepted and rewritten in its own format", async (format) => {
    const verdict = await checkOnNpmPath(await plainImage(format));
    expect(verdict).toMatchObject({ status: 200, format, width: 640, height: 480 });
    if (!("output" in verdict)) return;
    expect((await sharp(verdict.output).metadata()).format).toBe(format);
  });

  test("a PNG's text chunk is gone from the rewrite", async () => {
    const png = await plainImage("png");
    const text = Buffer.from("Comment\0GPS 51.5N 0.12W", "latin1");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(text.length);
    const chunk = Buffer.concat([length, Buffer.from("tEXt"), text, Buffer.alloc(4)]);
    const verdict = await checkOnNpmPath(Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]));
    expect(verdict.status).toBe(200);
    if (!("output" in verdict)) return;
    expect(fs.readFileSync(verdict.output).includes("51.5N")).toBe(false);
  });

  // Written as RGB, a grey or paletted PNG grew up to three times and counted so against the quotas.
  test.skipIf(!hasFfmpeg)("a grey PNG (as FFmpeg writes one) stays grey in the rewrite, no larger than it came", async () => {
    const input = tmp("png");
    fs.writeFileSync(input, image({ width: 400, height: 400, noise: true }));
    const output = tmp("png");
    expect(await reencodeImage({ input, output, format: "png", maxPixels: MAX_PIXELS })).toMatchObject({ ok: true, width: 400, height: 400 });
    expect(fs.statSync(output).size).toBeLessThanOrEqual(fs.statSync(input).size * 1.1);
  });

  test("a paletted PNG stays paletted in the rewrite, no larger than it came", async () => {
    // Noise (a fixed pseudo-random sequence) in seven colours, which no filter or deflate can shrink much.
    let seed = 1;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) >> 16;
    const pixels = Buffer.from(Array.from({ length: 400 * 400 * 3 }, () => (next() % 7) * 36));
    const input = tmp("png");
    await sharp(pixels, { raw: { width: 400, height: 400, channels: 3 } }).png({ palette: true }).toFile(input);
    const output = tmp("png");
    const rewritten = await reencodeImage({ input, output, format: "png", maxPixels: MAX_PIXELS });
    expect(rewritten).toMatchObject({ ok: true, width: 400, height: 400 });
    expect(fs.statSync(output).size).toBeLessThanOrEqual(fs.statSync(input).size * 1.1);
    // The size and hash it returns are the written file's.
    const written = fs.readFileSync(output);
    expect(rewritten).toMatchObject({ bytes: written.length, sha256: createHash("sha256").update(written).digest("hex") });
  });

  test("bytes that are not the format named are refused before sharp reads them", async () => {
    const file = tmp("png");
    fs.writeFileSync(file, await plainImage("webp"));
    expect(await reencodeImage({ input: file, output: tmp("png"), format: "png", maxPixels: MAX_PIXELS })).toMatchObject({ ok: false, reason: "wrong_format" });
  });

  test("sharp's loaders other than PNG, JPEG and WebP are blocked in this process", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>');
    await expect(sharp(svg).png().toBuffer()).rejects.toThrow(/unsupported image format/);
    const tiff = tmp("tiff");
    fs.writeFileSync(tiff, Buffer.concat([Buffer.from("II*\0"), Buffer.alloc(64)]));
    await expect(sharp(tiff).metadata()).rejects.toThrow(/unsupported image format/);
  });

  test.each([["png" as const], ["jpeg" as const], ["webp" as const]])("a truncated %s is refused as damaged", async (format) => {
    const whole = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
      .toFormat(format)
      .toBuffer();
    const verdict = await checkOnNpmPath(whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(verdict).toMatchObject({ status: 422 });
    expect("message" in verdict && verdict.message).toMatch(/damaged/);
  });
});

describe("hostile files are refused on the npm path as they are today", () => {
  test.each([
    ["a polyglot (PNG with a page appended)", async () => Buffer.concat([await plainImage("png"), Buffer.from("<html><body><script>alert(document.cookie)</script></body></html>")]), 415, /also holds HTML or script/],
    ["an SVG with a script", async () => svgWithScript(), 415, /SVG, HTML and other markup files are not accepted/],
    ["a PNG claiming 50,000 × 50,000 px", async () => pngClaiming(50_000, 50_000), 422, /claims 50000 × 50000 px; images over 40 megapixels are refused unread/],
    ["a text file renamed .png", async () => plainText(), 415, /not a PNG, JPEG, WebP, MP4, QuickTime or WebM file/],
    ["an HLS playlist named .mp4", async () => Buffer.from("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/passwd\n#EXT-X-ENDLIST\n"), 415, /not a PNG, JPEG, WebP, MP4, QuickTime or WebM file/],
  ])("%s", async (_name, make, status, message) => {
    const verdict = await checkOnNpmPath(await make());
    expect(verdict.status).toBe(status);
    expect("message" in verdict && verdict.message).toMatch(message);
  });

  test("an HLS playlist handed to the worker past the sniff is not a readable container", async () => {
    const file = tmp("mp4");
    fs.writeFileSync(file, `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${path.resolve("simulator/media/sample-1.mp4")}\n#EXT-X-ENDLIST\n`);
    for (const format of ["mp4", "mov", "webm"] as const) {
      expect(await probeVideoContainer({ file, format })).toMatchObject({ ok: false, reason: "unreadable" });
      expect(await remuxVideoContainer({ input: file, output: tmp(format), format })).toMatchObject({ ok: false, reason: "unreadable" });
    }
  });

  test("an HLS playlist behind an MP4 file type box is not read as a playlist by the worker", async () => {
    // Past the sniff (ftyp at byte 4), mediabunny is asked for MP4 alone: it never follows the playlist.
    const file = tmp("mp4");
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0, 0, 0, 16]), Buffer.from("ftypisom\0\0\0\0"), Buffer.from("#EXTM3U\n#EXTINF:10,\n/etc/passwd\n")]));
    expect(await probeVideoContainer({ file, format: "mp4" })).toMatchObject({ ok: false });
  });

  describe.skipIf(!hasFfmpeg)("clips made by FFmpeg", () => {
    test("a truncated MP4 (index last) cannot be read as a video", async () => {
      const cut = truncated(ffmpegClip("mp4", [...testsrc("640x360", 3), ...h264]));
      expect(await checkOnNpmPath(cut)).toMatchObject({ status: 422, message: "This MP4 file cannot be read as a video: it is damaged or truncated." });
    });

    test("a truncated MP4 (index first) holds fewer frames than its header says", async () => {
      const cut = truncated(ffmpegClip("mp4", [...testsrc("640x360", 4), ...h264, "-movflags", "+faststart"]));
      const verdict = await checkOnNpmPath(cut);
      expect(verdict.status).toBe(422);
      expect("message" in verdict && verdict.message).toMatch(/^This clip's header says 4 s, but it holds .* of frames: the file is damaged or truncated\.$/);
    });

    test("an MP4 whose header claims an hour", async () => {
      const verdict = await checkOnNpmPath(clipClaiming(3600));
      expect(verdict.status).toBe(422);
      expect("message" in verdict && verdict.message).toMatch(/header says 60 min, but it holds 1 s of frames/);
    });
  });
});

describe.skipIf(!hasFfmpeg)("clips, with mediabunny on a worker thread", () => {
  test("an H.264 MP4 with sound: probed, remuxed by copying packets, index first, no metadata", async () => {
    const clip = ffmpegClip("mp4", [...testsrc("640x360", 2), ...tone(2), ...h264, "-c:a", "aac", "-metadata", "title=Holiday at 51.5N", "-metadata", "location=+51.5000-000.1200/"]);
    const input = tmp("mp4");
    fs.writeFileSync(input, clip);
    expect(await probeVideoContainer({ file: input, format: "mp4" })).toEqual({
      ok: true,
      width: 640,
      height: 360,
      rotation: 0,
      codec: "h264",
      container: "mov,mp4,m4a,3gp,3g2,mj2",
      durationSeconds: expect.closeTo(2, 1) as number,
      fps: 24,
      packets: 48,
      audioCodec: "aac",
    });
    const verdict = await checkOnNpmPath(clip);
    expect(verdict).toMatchObject({ status: 200, format: "mp4", width: 640, height: 360 });
    if (!("output" in verdict)) return;
    const out = ffprobe(verdict.output);
    expect(out.streams.map((s) => [s.codec_type, s.codec_name])).toEqual([
      ["video", "h264"],
      ["audio", "aac"],
    ]);
    expect(out.streams[0]?.nb_frames).toBe("48");
    // Copied, not re-encoded: every frame decodes to the same picture.
    expect(frameDigests(verdict.output)).toEqual(frameDigests(input));
    const written = fs.readFileSync(verdict.output);
    expect(written.indexOf("moov")).toBeLessThan(written.indexOf("mdat"));
    expect(written.includes("51.5N")).toBe(false);
    expect(written.includes("+51.5000")).toBe(false);
    expect(out.format.tags ?? {}).not.toHaveProperty("title");
  });

  test("a QuickTime clip stays QuickTime", async () => {
    const verdict = await checkOnNpmPath(ffmpegClip("mov", [...testsrc("480x270", 1), ...h264, "-f", "mov"]));
    expect(verdict).toMatchObject({ status: 200, format: "mov", width: 480, height: 270, durationSeconds: 1 });
    if (!("output" in verdict)) return;
    expect(fs.readFileSync(verdict.output).toString("latin1", 4, 12)).toBe("ftypqt  ");
  });

  test("a VP9 WebM with Opus sound", async () => {
    const clip = ffmpegClip("webm", [...testsrc("320x240", 1), ...tone(1), "-c:v", "libvpx-vp9", "-deadline", "realtime", "-c:a", "libopus"]);
    const input = tmp("webm");
    fs.writeFileSync(input, clip);
    const verdict = await checkOnNpmPath(clip);
    expect(verdict).toMatchObject({ status: 200, format: "webm", width: 320, height: 240 });
    if (!("output" in verdict)) return;
    expect(ffprobe(verdict.output).streams.map((s) => s.codec_name)).toEqual(["vp9", "opus"]);
    expect(frameDigests(verdict.output)).toEqual(frameDigests(input));
  });

  test("a phone's portrait clip keeps its rotation", async () => {
    const plain = tmp("mp4");
    fs.writeFileSync(plain, ffmpegClip("mp4", [...testsrc("640x360", 1), ...h264]));
    const input = tmp("mp4");
    // FFmpeg 5.1 writes a rotation (a quarter turn counter-clockwise) only when it copies the stream.
    execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", input]);
    expect(await probeVideoContainer({ file: input, format: "mp4" })).toMatchObject({ ok: true, width: 640, height: 360, rotation: 270 });
    const output = tmp("mp4");
    const remuxed = await remuxVideoContainer({ input, output, format: "mp4" });
    expect(remuxed).toMatchObject({ ok: true, videoPackets: 24 });
    // The hash the worker returns is the written file's.
    expect(remuxed.ok && remuxed.sha256).toBe(createHash("sha256").update(fs.readFileSync(output)).digest("hex"));
    expect(await probeVideoContainer({ file: output, format: "mp4" })).toMatchObject({ ok: true, rotation: 270 });
    expect(ffprobe(output).streams[0]?.side_data_list?.[0]?.rotation).toBe(90);
  });

  test("a track the output cannot hold without re-encoding is refused, never transcoded", async () => {
    const input = tmp("mp4");
    fs.writeFileSync(input, ffmpegClip("mp4", [...testsrc("320x240", 1), "-c:v", "mpeg4"]));
    const output = tmp("mp4");
    const remux = await remuxVideoContainer({ input, output, format: "mp4" });
    expect(remux).toMatchObject({ ok: false, reason: "codec" });
    expect(fs.existsSync(output)).toBe(false);
  });

  test("a clip whose sniffed format is not its container is refused", async () => {
    const input = tmp("webm");
    fs.writeFileSync(input, ffmpegClip("mp4", [...testsrc("320x240", 1), ...h264]));
    expect(await probeVideoContainer({ file: input, format: "webm" })).toMatchObject({ ok: false, reason: "unreadable" });
  });
});

describe("the worker", () => {
  const sample = path.resolve("simulator/media/sample-1.mp4");

  test("reads the committed sample without FFmpeg, through the module the app calls", async () => {
    const probe = await probeVideoContainer({ file: sample, format: "mp4" });
    expect(probe).toMatchObject({ ok: true, codec: "h264" });
    if (!probe.ok) return;
    expect(probe.packets).toBeGreaterThan(0);
    expect(videoFactsFromProbe({ probe, format: "mp4", size: fs.statSync(sample).size, maxPixels: MAX_PIXELS })).toMatchObject({ ok: true });
  });

  test("a call past its time bound is the media pool's busy (no verdict on the file), its worker is ended, and the next call gets a fresh one", async () => {
    const output = tmp("mp4");
    const late = await remuxVideoContainer({ input: sample, output, format: "mp4", timeoutMs: 1 }).catch((error: unknown) => error);
    expect(isMediaBusy(late)).toBe(true);
    expect(fs.existsSync(output)).toBe(false);
    expect(videoContainerWorkerCount().busy).toBe(0);
    expect(await probeVideoContainer({ file: sample, format: "mp4" })).toMatchObject({ ok: true });
  });

  test("a worker started ahead is the one the next call uses", async () => {
    await closeVideoContainerWorkers();
    await warmVideoContainerWorker();
    expect(videoContainerWorkerCount()).toEqual({ idle: 1, busy: 0 });
    expect(await probeVideoContainer({ file: sample, format: "mp4" })).toMatchObject({ ok: true });
    expect(videoContainerWorkerCount()).toEqual({ idle: 1, busy: 0 });
  });

  test("a file over the input bound is refused before the worker reads it", async () => {
    expect(await probeVideoContainer({ file: sample, format: "mp4", maxInputBytes: 1000 })).toMatchObject({ ok: false, reason: "too_large" });
  });

  test("calls at once each get a worker; idle ones are kept for reuse, a few at most", async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => probeVideoContainer({ file: sample, format: "mp4" })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(videoContainerWorkerCount()).toEqual({ idle: 2, busy: 0 });
  });
});
