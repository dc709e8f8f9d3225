// The media toolchain, as capabilities: check and rewrite an upload, probe a
// video, extract one frame. Callers import them from here, never a library
// or a process.
// - Uploads are checked and rewritten with npm packages alone, on every
//   platform and serverless host: images with sharp (image-check.ts), video
//   containers with mediabunny on worker threads (video-container.ts).
// - Frames (stills, "use first/last frame") need the system's FFmpeg
//   (`ffprobe`, `ffmpeg` on PATH; docs/media-toolchain.md says why); without
//   it they throw ToolchainMissingError and the kit shows placeholders. It
//   runs as a child process with no shell, a time limit, an output cap and
//   one thread, on a file on disk. Files come from strangers and the
//   internet, and FFmpeg guesses formats from contents (a playlist would make
//   it open other files): every input is pinned to the one local file
//   (`-protocol_whitelist file`) and to the demuxer its first bytes name,
//   among the formats accepted for its kind. A file FFmpeg cannot read is an
//   answer (null).
// Every call takes a slot of the instance's media pool; a server too busy to
// do it in time throws the pool's busy error, never a verdict on the file.
import "server-only";
import { execFile } from "node:child_process";
import { isVideoFormat, type MediaFormat } from "@/lib/models/media-limits";
import { mediaBusy, mediaPool } from "./media-pool";
import { runInToolHost, type ToolRun } from "./tool-host";
import { readHead, sniffFormat } from "./sniff";

export { readImageHeader, reencodeImage } from "./image-check";
export { containerRefusalMessage, probeVideoContainer, remuxVideoContainer, videoFactsFromProbe } from "./video-container";

export type MediaProbe = { width: number; height: number; durationSeconds: number | null; codec: string };
export type StillFormat = "jpeg" | "webp";

/** A probe or a frame taking longer than this, once it has its slot, is cut: the server is too busy. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** A 640-px still is tens of kilobytes; anything near this is not a still. */
const MAX_STILL_BYTES = 2 * 1024 * 1024;
const MAX_PROBE_BYTES = 256 * 1024;
/** Dimensions past this are refused before decoding (a 16K frame costs ~1 GB of memory). */
const MAX_DIMENSION = 8192;

export const STILL_WIDTH = 640;
export const STILL_CONTENT_TYPE: Record<StillFormat, string> = { jpeg: "image/jpeg", webp: "image/webp" };

export class ToolchainMissingError extends Error {}

/**
 * How a run shares the CPU with the requests this instance answers. A still is
 * background work: its FFmpeg runs at nice 10 (below normal on Windows), so on
 * a busy machine a callback or a page is served first and the still waits. A
 * frame a person asked for ("use last frame") is not, and runs at normal priority.
 */
export type ToolPriority = "normal" | "background";

/** The demuxers a kind of input may be read with (FFmpeg's names), and the one each sniffed format is read with. */
const VIDEO_DEMUXERS = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm";
const IMAGE_DEMUXERS = "png_pipe,jpeg_pipe,webp_pipe";
const DEMUXER: Record<MediaFormat, string> = { mp4: "mov", mov: "mov", webm: "matroska", png: "png_pipe", jpeg: "jpeg_pipe", webp: "webp_pipe" };

/**
 * The input options that pin `file` to itself and to the demuxer its first
 * bytes name; null when those bytes are not a format of `kind` (or the file
 * cannot be read). Nothing else is guessed: no playlist, concat list or image
 * sequence can name another file, nor any protocol but a local file.
 */
async function pinnedInput(file: string, kind: "video" | "image"): Promise<string[] | null> {
  const head = await readHead(file).catch(() => null);
  const sniffed = head ? sniffFormat(head) : null;
  if (!sniffed || "refused" in sniffed || isVideoFormat(sniffed.format) !== (kind === "video")) return null;
  const whitelist = kind === "video" ? VIDEO_DEMUXERS : IMAGE_DEMUXERS;
  return ["-protocol_whitelist", "file", "-format_whitelist", whitelist, "-f", DEMUXER[sniffed.format], "-i", `file:${file}`];
}

/** What the video holds (its first video stream), or null when it is not a video FFmpeg can read. */
export async function probeMedia({ file, timeoutMs = DEFAULT_TIMEOUT_MS }: { file: string; timeoutMs?: number }): Promise<MediaProbe | null> {
  const input = await pinnedInput(file, "video");
  return input && probePinned(input, timeoutMs);
}

/**
 * A pinned video input (pinnedInput) and what it holds, when it is a video
 * FFmpeg can read no larger than MAX_DIMENSION: what a frame is taken from.
 */
async function decodableVideo(file: string, timeoutMs: number, priority: ToolPriority): Promise<{ input: string[]; probe: MediaProbe } | null> {
  const input = await pinnedInput(file, "video");
  const probe = input && (await probePinned(input, timeoutMs, priority));
  return input && probe && probe.width <= MAX_DIMENSION && probe.height <= MAX_DIMENSION ? { input, probe } : null;
}

async function probePinned(input: string[], timeoutMs: number, priority: ToolPriority = "normal"): Promise<MediaProbe | null> {
  const out = await run("ffprobe", ["-v", "error", ...input, "-select_streams", "v:0", "-show_entries", "stream=width,height,codec_name:format=duration", "-of", "json"], {
    timeoutMs,
    maxBytes: MAX_PROBE_BYTES,
    priority,
  });
  if (!out) return null;
  try {
    const json = JSON.parse(out.toString("utf8")) as { streams?: { width?: number; height?: number; codec_name?: string }[]; format?: { duration?: string } };
    const stream = json.streams?.[0];
    if (!stream?.width || !stream.height) return null;
    const duration = Number(json.format?.duration);
    return { width: stream.width, height: stream.height, codec: stream.codec_name ?? "unknown", durationSeconds: Number.isFinite(duration) ? duration : null };
  } catch {
    return null;
  }
}

/**
 * One frame of `file` near `atSeconds` (the first frame when the clip is
 * shorter), scaled to `width` px wide, as a JPEG or WebP image; null when the
 * file has no decodable video frame. Background work by default (ToolPriority).
 */
export async function extractStill({
  file,
  atSeconds = 0.5,
  width = STILL_WIDTH,
  format = "jpeg",
  timeoutMs = DEFAULT_TIMEOUT_MS,
  priority = "background",
}: {
  file: string;
  atSeconds?: number;
  width?: number;
  format?: StillFormat;
  timeoutMs?: number;
  priority?: ToolPriority;
}): Promise<{ image: Buffer; contentType: string; probe: MediaProbe } | null> {
  const video = await decodableVideo(file, timeoutMs, priority);
  if (!video) return null;
  const { input, probe } = video;
  const at = probe.durationSeconds !== null && probe.durationSeconds > atSeconds * 2 ? atSeconds : 0;
  const codec = format === "webp" ? ["-c:v", "libwebp", "-quality", "75"] : ["-c:v", "mjpeg", "-q:v", "5"];
  const image = await run(
    "ffmpeg",
    // -ss before -i seeks by the index (fast), then decodes to the exact frame.
    ["-nostdin", "-v", "error", "-threads", "1", "-ss", String(at), ...input, "-map", "0:v:0", "-frames:v", "1", "-an", "-sn", "-dn",
      // Even height, no upscaling of smaller clips.
      "-vf", `scale='min(${width},iw)':-2,format=yuvj420p`, ...codec, "-f", "image2pipe", "-"],
    { timeoutMs, maxBytes: MAX_STILL_BYTES, priority },
  );
  return image && image.length > 0 ? { image, contentType: STILL_CONTENT_TYPE[format], probe } : null;
}

export type VideoProbe = MediaProbe & {
  /** The container's own name for itself ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"). */
  container: string;
  fps: number | null;
  /** Video packets actually present: what the file holds, whatever its header claims. */
  packets: number | null;
};

/**
 * FFmpeg's reading of a video's container (uploads use probeVideoContainer;
 * this stays for the benchmark that compares the two paths in one run, and
 * as the fallback a fork may prefer for codecs mediabunny does not know):
 * size, codec, frame rate,
 * the duration its header claims and the packets it really holds (read
 * through without decoding, so a 100 MB file takes a fraction of a second).
 */
export async function ffprobeVideo({ file, timeoutMs = 20_000 }: { file: string; timeoutMs?: number }): Promise<VideoProbe | null> {
  const input = await pinnedInput(file, "video");
  if (!input) return null;
  const out = await run(
    "ffprobe",
    ["-v", "error", ...input, "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=width,height,codec_name,avg_frame_rate,r_frame_rate,nb_read_packets,duration:format=duration,format_name", "-of", "json"],
    { timeoutMs, maxBytes: MAX_PROBE_BYTES },
  );
  if (!out) return null;
  try {
    type Stream = { width?: number; height?: number; codec_name?: string; avg_frame_rate?: string; r_frame_rate?: string; nb_read_packets?: string; duration?: string };
    const json = JSON.parse(out.toString("utf8")) as { streams?: Stream[]; format?: { duration?: string; format_name?: string } };
    const stream = json.streams?.[0];
    if (!stream?.width || !stream.height) return null;
    const durations = [Number(json.format?.duration), Number(stream.duration)].filter((d) => Number.isFinite(d) && d > 0);
    const packets = Number(stream.nb_read_packets);
    return {
      width: stream.width,
      height: stream.height,
      codec: stream.codec_name ?? "unknown",
      container: json.format?.format_name ?? "unknown",
      durationSeconds: durations.length ? Math.max(...durations) : null,
      fps: rate(stream.avg_frame_rate) ?? rate(stream.r_frame_rate),
      packets: Number.isInteger(packets) ? packets : null,
    };
  } catch {
    return null;
  }
}

const rate = (fraction: string | undefined): number | null => {
  const [n, d] = (fraction ?? "").split("/").map(Number);
  return n && d && Number.isFinite(n / d) && n / d > 0 ? n / d : null;
};

/**
 * The first or the last frame of a video, at full size, as a PNG at
 * `output` (the last: every frame of the final second is decoded, and the
 * last one written stays). False when there is no decodable frame.
 */
export async function extractFrame({ file, which, output, timeoutMs = DEFAULT_TIMEOUT_MS }: { file: string; which: "first" | "last"; output: string; timeoutMs?: number }): Promise<boolean> {
  const video = await decodableVideo(file, timeoutMs, "normal");
  if (!video) return false;
  const { input } = video;
  const frames = which === "last" ? ["-sseof", "-1", ...input, "-map", "0:v:0", "-update", "1"] : [...input, "-map", "0:v:0", "-frames:v", "1"];
  const out = await run("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", ...frames, "-an", "-sn", "-dn", "-c:v", "png", "-f", "image2", "-y", output], { timeoutMs, maxBytes: MAX_PROBE_BYTES });
  return out !== null;
}

export type RewriteFormat = "png" | "jpeg" | "webp" | "mp4" | "mov" | "webm";

/**
 * FFmpeg's rewrite of an upload (uploads use reencodeImage and
 * remuxVideoContainer; this stays for the benchmark's same-run comparison).
 * Writes `input` anew to `output` with nothing but its pictures (and a
 * video's sound): an image is decoded and re-encoded (EXIF, GPS, text chunks
 * and anything appended are gone), a video is remuxed without re-encoding
 * (metadata, data streams and trailing bytes are gone; MP4 gets its index
 * first, for the gateway's player). False when FFmpeg cannot do it.
 */
export async function ffmpegRewrite({ input, output, format, maxPixels, timeoutMs = 30_000 }: { input: string; output: string; format: RewriteFormat; maxPixels: number; timeoutMs?: number }): Promise<boolean> {
  const image: Record<"png" | "jpeg" | "webp", string[]> = {
    png: ["-c:v", "png", "-f", "image2"],
    jpeg: ["-c:v", "mjpeg", "-q:v", "2", "-f", "image2"],
    webp: ["-c:v", "libwebp", "-quality", "90", "-f", "webp"],
  };
  const video: Record<"mp4" | "mov" | "webm", string[]> = {
    mp4: ["-c", "copy", "-movflags", "+faststart", "-f", "mp4"],
    mov: ["-c", "copy", "-movflags", "+faststart", "-f", "mov"],
    webm: ["-c", "copy", "-f", "webm"],
  };
  const pinned = await pinnedInput(input, format in image ? "image" : "video");
  if (!pinned) return false;
  const streams = format in image ? ["-map", "0:v:0", "-frames:v", "1", ...image[format as keyof typeof image]] : ["-map", "0:v:0", "-map", "0:a:0?", ...video[format as keyof typeof video]];
  // -max_pixels bounds the decoder itself: a header that lied about its size still cannot make it allocate more.
  const args = ["-nostdin", "-v", "error", "-threads", "1", "-max_pixels", String(maxPixels), ...pinned, ...streams, "-map_metadata", "-1", "-map_chapters", "-1", "-y", output];
  const out = await run("ffmpeg", args, { timeoutMs, maxBytes: MAX_PROBE_BYTES });
  return out !== null;
}

/**
 * Whether the toolchain is installed, and which version (for the doctor and
 * the pages that offer frame actions). Outside the media pool: it reads no
 * file, and a page must not wait behind uploads to learn it. Started by the
 * tool host, as stills' runs are: never a fork of the app.
 */
export async function toolchainVersion(): Promise<string | null> {
  try {
    const out = await spawnTool("ffmpeg", ["-version"], { timeoutMs: 5_000, maxBytes: 64 * 1024, priority: "background" });
    return out?.toString("utf8").split("\n")[0] ?? null;
  } catch (error) {
    if (error instanceof ToolchainMissingError) return null;
    throw error;
  }
}

/**
 * stdout of a successful run, in a slot of the media pool; null when the tool
 * refused the input or wrote too much. Throws the pool's busy error when no
 * slot came in time or the run outlived `timeoutMs` (the server is too
 * loaded: the file may be fine), and ToolchainMissingError when the tool is
 * not installed.
 */
function run(command: string, args: string[], limits: { timeoutMs: number; maxBytes: number; priority?: ToolPriority }): Promise<Buffer | null> {
  return mediaPool().run(() => spawnTool(command, args, limits));
}

/**
 * One run of `command` with no shell, bounded in time and output: run()
 * without the pool. Background runs are started by the tool host (a process
 * of its own at nice 10: tool-host.ts says why), the others by this process.
 */
async function spawnTool(command: string, args: string[], { timeoutMs, maxBytes, priority = "normal" }: { timeoutMs: number; maxBytes: number; priority?: ToolPriority }): Promise<Buffer | null> {
  const { stdout, error } =
    priority === "background"
      ? await runInToolHost({ command, args, timeoutMs, maxBytes })
      : await new Promise<ToolRun>((resolve) =>
          execFile(command, args, { encoding: "buffer", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: maxBytes, windowsHide: true }, (failure, out) =>
            resolve({ stdout: failure ? null : out, error: failure && { code: (failure as NodeJS.ErrnoException).code, killed: failure.killed, signal: failure.signal } }),
          ),
        );
  if (error?.code === "ENOENT") throw new ToolchainMissingError(`${command} is not installed (or not on PATH): run \`npm run doctor\` for how to install FFmpeg.`);
  // Killed by the timeout (not by the output cap, which is the file's doing).
  if (error?.killed && error.signal === "SIGKILL" && error.code !== "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") throw mediaBusy();
  return error ? null : stdout;
}
