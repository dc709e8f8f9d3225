// Frame extraction with the media toolchain on small clips made here by FFmpeg
// itself (a landscape, a portrait, one shorter than the still's time), on
// files it cannot decode, and on playlists that name a local file: FFmpeg
// would read those through, so each input is pinned to itself and its format.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { env } from "@/lib/env";
import { canExtractFrames } from "@/lib/media/frame-support";
import { mediaPool } from "@/lib/media/media-pool";
import { stopToolHost } from "@/lib/media/tool-host";
import { extractFrame, extractStill, probeMedia, ffprobeVideo, ffmpegRewrite, toolchainVersion } from "@/lib/media/toolchain";
import { hasFfmpeg } from "../support/media-fixtures";

let dir: string;
const clip = (name: string) => path.join(dir, name);

function makeClip(name: string, size: string, seconds: number) {
  execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", `testsrc2=size=${size}:rate=24:duration=${seconds}`, "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+faststart", clip(name)]);
}

/** Width and height of a JPEG, from its start-of-frame marker. */
function jpegSize(image: Buffer): { width: number; height: number } {
  for (let i = 2; i < image.length - 9; ) {
    const marker = image[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc3) return { height: image.readUInt16BE(i + 5), width: image.readUInt16BE(i + 7) };
    i += 2 + image.readUInt16BE(i + 2);
  }
  throw new Error("not a JPEG");
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-toolchain-"));
  if (!hasFfmpeg) return;
  makeClip("landscape.mp4", "1280x720", 1.5);
  makeClip("portrait.mp4", "720x1280", 1.5);
  makeClip("short.mp4", "320x240", 0.2);
  const good = fs.readFileSync(clip("landscape.mp4"));
  fs.writeFileSync(clip("truncated.mp4"), good.subarray(0, 2_000));
  fs.writeFileSync(clip("garbage.mp4"), Buffer.from("<html>not a video</html>".repeat(100)));
  fs.writeFileSync(clip("empty.mp4"), Buffer.alloc(0));
  execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=1", "-c:v", "libvpx-vp9", "-deadline", "realtime", clip("clip.webm")]);
  // A result that is a playlist naming a file on this machine, as a stranger's server could send it.
  const local = clip("landscape.mp4");
  fs.writeFileSync(clip("hls"), `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:1.5,\n${local}\n#EXT-X-ENDLIST\n`);
  fs.writeFileSync(clip("ffconcat"), `ffconcat version 1.0\nfile '${local}'\n`);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasFfmpeg)("extractStill", () => {
  test.each([
    { name: "landscape.mp4", width: 640, height: 360 },
    { name: "portrait.mp4", width: 640, height: 1138 },
    // Smaller than 640 px: kept at its own size, and a clip shorter than 0.5 s gives its first frame.
    { name: "short.mp4", width: 320, height: 240 },
  ])("$name gives a $width×$height JPEG", async ({ name, width, height }) => {
    const still = await extractStill({ file: clip(name) });
    expect(still?.contentType).toBe("image/jpeg");
    expect(jpegSize(still!.image)).toEqual({ width, height });
    expect(still!.image.length).toBeLessThan(200_000);
  });

  test("a WebP still when asked", async () => {
    const still = await extractStill({ file: clip("landscape.mp4"), format: "webp" });
    expect(still?.contentType).toBe("image/webp");
    expect(still!.image.subarray(8, 12).toString("latin1")).toBe("WEBP");
  });

  test.each(["truncated.mp4", "garbage.mp4", "empty.mp4", "missing.mp4"])("%s has no still, and no error", async (name) => {
    await expect(extractStill({ file: clip(name) })).resolves.toBeNull();
  });
});

describe.skipIf(!hasFfmpeg)("an input names no other file", () => {
  test("FFmpeg left to guess reads the playlist's local file (what the pinning prevents)", () => {
    const guessed = execFileSync("ffprobe", ["-v", "error", "-show_entries", "stream=width", "-of", "csv=p=0", clip("hls")]).toString().trim();
    expect(guessed.split(/\s+/)).toContain("1280");
  });

  test.each(["hls", "ffconcat"])("a %s playlist naming a local clip: no probe, no still, no frame, no rewrite", async (name) => {
    expect(await probeMedia({ file: clip(name) })).toBeNull();
    expect(await ffprobeVideo({ file: clip(name) })).toBeNull();
    expect(await extractStill({ file: clip(name) })).toBeNull();
    const output = clip(`${name}-frame.png`);
    expect(await extractFrame({ file: clip(name), which: "last", output })).toBe(false);
    expect(fs.existsSync(output)).toBe(false);
    expect(await ffmpegRewrite({ input: clip(name), output: clip(`${name}-clean.mp4`), format: "mp4", maxPixels: 40_000_000 })).toBe(false);
    expect(fs.existsSync(clip(`${name}-clean.mp4`))).toBe(false);
  });

  test("an image is not read as a video, nor a video as an image", async () => {
    const png = clip("frame.png");
    expect(await extractFrame({ file: clip("landscape.mp4"), which: "first", output: png })).toBe(true);
    expect(await probeMedia({ file: png })).toBeNull();
    expect(await ffmpegRewrite({ input: clip("landscape.mp4"), output: clip("not-an-image.png"), format: "png", maxPixels: 40_000_000 })).toBe(false);
  });

  test("a WebM clip is read with the Matroska demuxer", async () => {
    expect(await ffprobeVideo({ file: clip("clip.webm") })).toMatchObject({ width: 320, height: 240, codec: "vp9", container: "matroska,webm" });
    expect(await extractStill({ file: clip("clip.webm") })).not.toBeNull();
  });
});

describe.skipIf(!hasFfmpeg)("a run cut by its time limit", () => {
  test("is the server being busy, never a verdict on the file", async () => {
    await expect(extractStill({ file: clip("landscape.mp4"), timeoutMs: 1 })).rejects.toMatchObject({ code: "media_busy", status: 503 });
    await expect(ffprobeVideo({ file: clip("landscape.mp4"), timeoutMs: 1 })).rejects.toMatchObject({ code: "media_busy" });
    // The same file, given its time: fine.
    expect(await extractStill({ file: clip("landscape.mp4") })).not.toBeNull();
  });
});

describe.skipIf(!hasFfmpeg)("toolchainVersion", () => {
  test("answers while every slot of the media pool is taken: a page asking whether frames work never waits behind uploads", async () => {
    const releases: (() => void)[] = [];
    const held = Array.from({ length: env.MEDIA_CONCURRENCY }, () => mediaPool().run(() => new Promise<void>((resolve) => releases.push(resolve))));
    try {
      await expect.poll(() => releases.length).toBe(env.MEDIA_CONCURRENCY);
      expect(await toolchainVersion()).toMatch(/^ffmpeg version/);
    } finally {
      releases.forEach((release) => release());
      await Promise.all(held);
    }
  });
});

describe.skipIf(!hasFfmpeg)("canExtractFrames", () => {
  test("answers from what it knows at once, and checks again in the background a minute later: FFmpeg removed shows without a restart", async () => {
    const originalPath = process.env.PATH;
    const started = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: started });
    try {
      expect(await canExtractFrames()).toBe(true);
      process.env.PATH = fs.mkdtempSync(path.join(os.tmpdir(), "fh-no-ffmpeg-"));
      // Within the minute: what it knew, with no new check.
      expect(await canExtractFrames()).toBe(true);
      vi.setSystemTime(started + 61_000);
      // Past it: still the last answer at once, while the check runs; then the new one.
      expect(await canExtractFrames()).toBe(true);
      await expect.poll(() => canExtractFrames()).toBe(false);
    } finally {
      process.env.PATH = originalPath;
      vi.useRealTimers();
      await stopToolHost();
    }
  });
});

describe.skipIf(!hasFfmpeg)("probeMedia", () => {
  test("reads size, codec and duration", async () => {
    const probe = await probeMedia({ file: clip("portrait.mp4") });
    expect(probe).toMatchObject({ width: 720, height: 1280, codec: "h264" });
    expect(probe!.durationSeconds).toBeCloseTo(1.5, 1);
  });
});
