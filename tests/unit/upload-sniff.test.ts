// What an upload is, read from its bytes alone: the format, an image's size
// from its header (before any decoder), markup hidden in it, and a video's
// container facts against the frames it really holds. Files are made here
// by FFmpeg or byte by byte (tests/support/media-fixtures.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { markupScanner, readImageSize, sniffFormat } from "@/lib/media/sniff";
import { extractFrame, ffprobeVideo, ffmpegRewrite } from "@/lib/media/toolchain";
import * as fixtures from "../support/media-fixtures";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-sniff-"));
const onDisk = (bytes: Buffer, name = `f${Math.random().toString(36).slice(2)}`) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
};
const scan = (bytes: Buffer) => {
  const scanner = markupScanner();
  // Two pieces cut mid-file, as chunks of a stream arrive.
  scanner.push(bytes.subarray(0, Math.floor(bytes.length * 0.99)));
  scanner.push(bytes.subarray(Math.floor(bytes.length * 0.99)));
  return scanner.found;
};

describe.skipIf(!fixtures.hasFfmpeg)("sniffing", () => {
  test.each([
    ["a PNG", () => fixtures.image(), { format: "png" }, false],
    ["a JPEG with a GPS block", () => fixtures.image({ format: "jpeg", marker: "51.5N" }), { format: "jpeg" }, false],
    ["an MP4", () => fixtures.clip({ seconds: 1 }), { format: "mp4" }, false],
    ["an SVG with a script", fixtures.svgWithScript, { refused: "markup" }, true],
    ["a PNG with a page appended (polyglot)", fixtures.polyglot, { format: "png" }, true],
    ["text renamed .png", fixtures.plainText, { refused: "unknown" }, false],
  ])("%s", (_name, make, sniffed, markup) => {
    const bytes = make();
    expect(sniffFormat(bytes.subarray(0, 64))).toEqual(sniffed);
    expect(scan(bytes)).toBe(markup);
  });
});

/** `bytes` with `text` written over them at `at` (a negative `at` counts from the end). */
const planted = (bytes: Buffer, text: string, at: number) => {
  const copy = Buffer.from(bytes);
  copy.write(text, at < 0 ? copy.length + at : at, "latin1");
  return copy;
};

describe.skipIf(!fixtures.hasFfmpeg)("markup is looked for where a browser sniffs: the first and the last bytes", () => {
  // Made lazily, on first use by a test: a skipped suite's body still runs to collect its tests.
  let made: Buffer | undefined;
  const clip = () => (made ??= fixtures.clip({ seconds: 2 }));
  test.each([
    ["a tag in the middle of a clip (compressed video holds such bytes by chance)", () => planted(clip(), "<html><script>x</script>", Math.floor(clip().length / 2)), false],
    ["a tag in the first kilobyte", () => planted(clip(), "<script>x</script>", 600), true],
    ["a tag just inside the first 2 KB", () => planted(clip(), "<svg>", 2040), true],
    ["a tag just past the first 2 KB", () => planted(clip(), "<svg>", 2050), false],
    ["a tag in the last kilobyte", () => planted(clip(), "<body>", -900), true],
  ])("%s", (_name, make, markup) => {
    expect(clip().length).toBeGreaterThan(8192);
    const bytes = make();
    expect(scan(bytes)).toBe(markup);
    // The same in small chunks, as a slow client sends them.
    const scanner = markupScanner();
    for (let at = 0; at < bytes.length; at += 700) scanner.push(bytes.subarray(at, at + 700));
    expect(scanner.found).toBe(markup);
  });
});

describe.skipIf(!fixtures.hasFfmpeg)("image size from the header, before decoding", () => {
  test.each([
    ["PNG", "png" as const, 640, 480],
    ["JPEG", "jpeg" as const, 300, 700],
  ])("%s", async (_name, format, width, height) => {
    expect(await readImageSize(onDisk(fixtures.image({ width, height, format, marker: "x" })), format)).toEqual({ width, height });
  });

  test("a PNG claiming 50,000 × 50,000 px is read as claiming it, without a decoder", async () => {
    expect(await readImageSize(onDisk(fixtures.pngClaiming(50_000, 50_000)), "png")).toEqual({ width: 50_000, height: 50_000 });
  });

  test("the decoder is bounded too: FFmpeg refuses to decode past max_pixels", async () => {
    const output = path.join(dir, "bomb-out.png");
    expect(await ffmpegRewrite({ input: onDisk(fixtures.pngClaiming(50_000, 50_000)), output, format: "png", maxPixels: 40_000_000 })).toBe(false);
  });

  test("a rewritten image keeps its pixels and loses its metadata", async () => {
    const output = path.join(dir, "clean.jpeg");
    expect(await ffmpegRewrite({ input: onDisk(fixtures.image({ format: "jpeg", marker: "FRAMEHOOK-GPS-51.5N" })), output, format: "jpeg", maxPixels: 40_000_000 })).toBe(true);
    const clean = fs.readFileSync(output);
    expect(clean.includes("FRAMEHOOK-GPS")).toBe(false);
    expect(await readImageSize(output, "jpeg")).toEqual({ width: 640, height: 480 });
  });
});

describe.skipIf(!fixtures.hasFfmpeg)("video container facts", () => {
  test("a real clip: size, rate, codec, and as many packets as its header says", async () => {
    const probe = await ffprobeVideo({ file: onDisk(fixtures.clip({ seconds: 2, fps: 24 })) });
    expect(probe).toMatchObject({ width: 640, height: 360, codec: "h264", fps: 24, packets: 48 });
    expect(probe!.durationSeconds).toBeCloseTo(2, 1);
  });

  test("a clip whose header claims an hour holds a second of packets", async () => {
    const probe = await ffprobeVideo({ file: onDisk(fixtures.clipClaiming(3600)) });
    expect(probe!.durationSeconds).toBeGreaterThanOrEqual(3599);
    expect(probe!.packets! / probe!.fps!).toBeLessThanOrEqual(1.1);
  });

  test("a truncated clip holds fewer packets than its header says, or cannot be read", async () => {
    const cut = await ffprobeVideo({ file: onDisk(fixtures.truncated(fixtures.clip({ seconds: 3 }))) });
    expect(cut === null || cut.packets! / cut.fps! < cut.durationSeconds! * 0.9).toBe(true);
    expect(await ffprobeVideo({ file: onDisk(fixtures.truncated(fixtures.clip({ seconds: 3, faststart: false }))) })).toBeNull();
  });

  test("the first and the last frame of a clip: full-size PNGs, different pictures", async () => {
    const file = onDisk(fixtures.clip({ seconds: 2, width: 480, height: 270 }));
    const [first, last] = [path.join(dir, "first.png"), path.join(dir, "last.png")];
    expect(await extractFrame({ file, which: "first", output: first })).toBe(true);
    expect(await extractFrame({ file, which: "last", output: last })).toBe(true);
    for (const frame of [first, last]) expect(await readImageSize(frame, "png")).toEqual({ width: 480, height: 270 });
    expect(fs.readFileSync(first).equals(fs.readFileSync(last))).toBe(false);
    expect(await extractFrame({ file: onDisk(fixtures.plainText()), which: "last", output: path.join(dir, "none.png") })).toBe(false);
  });
});
