// The worker thread that reads and rewrites video containers with mediabunny
// (pure JavaScript), so that parsing a stranger's file never runs on the thread
// that answers requests. Plain JavaScript, so that Node runs it as it is under
// Next's server, Vitest and tsx alike. lib/media/video-container.ts starts it,
// sends one task at a time ({ id, op, ... }), bounds it in time (it terminates
// the thread) and reads one answer per task ({ id, ok, result | error }).
//
// Only MP4, QuickTime and WebM are readable here, each pinned to the format
// the sniff found: never mediabunny's ALL_FORMATS (it includes HLS playlists,
// which name other files). The source is a file handle opened here, not a
// path source, so nothing in a file can make it open another one. Packets are
// copied as they are: no decoder or encoder exists in this thread (Node has no
// WebCodecs), so a file that would need one is refused, never transcoded.
import fs from "node:fs";
import os from "node:os";
import { parentPort } from "node:worker_threads";
import {
  CustomSource,
  EncodedAudioPacketSource,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  FilePathTarget,
  Input,
  MovOutputFormat,
  MP4,
  Mp4OutputFormat,
  Output,
  QTFF,
  UnsupportedInputFormatError,
  WEBM,
  WebMOutputFormat,
} from "mediabunny";
import { hashFile } from "./hash-file.mjs";

/** The one input format each sniffed format may be read as. */
const INPUT_FORMATS = { mp4: [MP4], mov: [QTFF], webm: [WEBM] };

/** FFmpeg's names for the two container families, so a probe reads as ffprobe's did. */
const CONTAINER_NAME = { mp4: "mov,mp4,m4a,3gp,3g2,mj2", mov: "mov,mp4,m4a,3gp,3g2,mj2", webm: "matroska,webm" };

/** mediabunny's codec names that differ from FFmpeg's. */
const CODEC_NAME = { avc: "h264" };

/** What the thread reads ahead and keeps of a file at once. */
const CACHE_BYTES = 8 * 1024 * 1024;

class Refusal extends Error {
  /** @param {"unreadable" | "no_video" | "codec" | "too_large"} reason */
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}

/** @param {string} file @param {"mp4" | "mov" | "webm"} format @param {number} maxInputBytes */
async function open(file, format, maxInputBytes) {
  const formats = INPUT_FORMATS[format];
  if (!formats) throw new Refusal("unreadable", `Not a video format read here: ${String(format)}`);
  const handle = await fs.promises.open(file, "r");
  const { size } = await handle.stat();
  if (size > maxInputBytes) {
    await handle.close();
    throw new Refusal("too_large", `${size} bytes is over the ${maxInputBytes}-byte bound`);
  }
  const source = new CustomSource({
    getSize: () => size,
    read: async (start, end) => {
      const bytes = new Uint8Array(end - start);
      const { bytesRead } = await handle.read(bytes, 0, end - start, start);
      return bytes.subarray(0, bytesRead);
    },
    maxCacheSize: CACHE_BYTES,
  });
  const input = new Input({ formats, source });
  try {
    await input.getFormat();
  } catch (error) {
    input.dispose();
    await handle.close();
    if (error instanceof UnsupportedInputFormatError) throw new Refusal("unreadable", `Not a readable ${format} container`);
    throw error;
  }
  return {
    input,
    close: async () => {
      input.dispose();
      await handle.close();
    },
  };
}

/**
 * Container facts: the first video track's size, codec and rotation, the
 * duration the headers claim, and the packets really present, counted by
 * reading each one through (a header's sample table lists packets a cut file
 * no longer holds).
 */
export async function probe({ file, format, maxInputBytes }) {
  const { input, close } = await open(file, format, maxInputBytes);
  try {
    const video = await input.getPrimaryVideoTrack();
    if (!video) throw new Refusal("no_video", "No video track");
    const codec = await video.getCodec();
    const internal = await video.getInternalCodecId();
    const claimed = [await input.getDurationFromMetadata(), await video.getDurationFromMetadata()].filter((d) => typeof d === "number" && Number.isFinite(d) && d > 0);
    let packets = 0;
    let first = Infinity;
    let end = 0;
    for await (const packet of new EncodedPacketSink(video).packets()) {
      packets++;
      first = Math.min(first, packet.timestamp);
      end = Math.max(end, packet.timestamp + packet.duration);
    }
    const span = packets > 0 ? end - first : 0;
    const audio = await input.getPrimaryAudioTrack();
    return {
      width: await video.getCodedWidth(),
      height: await video.getCodedHeight(),
      rotation: await video.getRotation(),
      codec: codec ? (CODEC_NAME[codec] ?? codec) : typeof internal === "string" ? internal : "unknown",
      container: CONTAINER_NAME[format],
      durationSeconds: claimed.length ? Math.max(...claimed) : span > 0 ? span : null,
      fps: span > 0 ? packets / span : null,
      packets,
      audioCodec: audio ? ((await audio.getCodec()) ?? "unknown") : null,
    };
  } finally {
    await close();
  }
}

/**
 * Writes the first video track (and the first audio track, if any) of `input`
 * to `output` in `format` by copying its packets: no metadata tags, no other
 * tracks, nothing past the last packet; MP4 and QuickTime get their index
 * first (space reserved from the packet count), for players that stream.
 * Returns the output's size, packet counts and SHA-256 (hashed here, so that
 * the thread that answers requests does not read the file through again).
 */
export async function remux({ input: file, output: target, format, maxInputBytes }) {
  const { input, close } = await open(file, format, maxInputBytes);
  let output = null;
  try {
    const video = await input.getPrimaryVideoTrack();
    if (!video) throw new Refusal("no_video", "No video track");
    const audio = await input.getPrimaryAudioTrack();
    const fastStart = { fastStart: "reserve" };
    const outputFormat = format === "webm" ? new WebMOutputFormat() : format === "mov" ? new MovOutputFormat(fastStart) : new Mp4OutputFormat(fastStart);
    const supported = outputFormat.getSupportedCodecs();
    const tracks = [];
    for (const track of audio ? [video, audio] : [video]) {
      const codec = await track.getCodec();
      if (!codec || !supported.includes(codec)) {
        throw new Refusal("codec", `A ${format} file cannot hold ${codec ?? "this"} ${track.type} without re-encoding`);
      }
      tracks.push({ track, codec, config: await track.getDecoderConfig() });
    }
    // Unchunked: each piece is written at its position as mediabunny hands it
    // over. The default buffers the file in fresh 16 MiB chunks, which took a
    // 96 MB clip's check from +34 to +64–112 MB of RSS, and 60 % longer.
    output = new Output({ format: outputFormat, target: new FilePathTarget(target, { chunked: false }) });
    for (const entry of tracks) {
      const { track, codec } = entry;
      const maximumPacketCount = format === "webm" ? undefined : (await track.computePacketStats()).packetCount;
      if (track.isVideoTrack()) {
        entry.source = new EncodedVideoPacketSource(codec);
        output.addVideoTrack(entry.source, { rotation: await track.getRotation(), maximumPacketCount });
      } else {
        entry.source = new EncodedAudioPacketSource(codec);
        output.addAudioTrack(entry.source, { maximumPacketCount });
      }
    }
    await output.start();
    const counts = await Promise.all(
      tracks.map(async ({ track, source, config }) => {
        let count = 0;
        for await (const packet of new EncodedPacketSink(track).packets()) {
          await source.add(packet, count === 0 && config ? { decoderConfig: config } : undefined);
          count++;
        }
        return count;
      }),
    );
    await output.finalize();
    const { size } = await fs.promises.stat(target);
    return { bytes: size, videoPackets: counts[0], audioPackets: counts[1] ?? 0, sha256: await hashFile(target) };
  } catch (error) {
    if (output && output.state !== "finalized" && output.state !== "canceled") await output.cancel().catch(() => undefined);
    throw error;
  } finally {
    await close();
  }
}

const OPS = { probe, remux };

/** The nice value of this thread: below the thread that answers requests. */
const WORKER_NICE = 10;

/**
 * Lowers this thread's CPU priority (Linux keeps a nice value per thread;
 * /proc/thread-self names this one), so that on a busy machine the app's
 * callbacks and pages are served before a file is read through. Elsewhere,
 * or if refused, the thread keeps the process's priority. Returns the
 * thread's id, or null.
 */
function lowerThreadPriority() {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    os.setPriority(tid, Math.max(os.getPriority(tid), WORKER_NICE));
    return tid;
  } catch {
    return null;
  }
}

// Imported outside a worker (the benchmark, to show what the same work does to
// the thread it runs on), the module only exports probe and remux. In a
// worker, it says when it has loaded (mediabunny's import is most of a start).
parentPort?.postMessage({ ready: true, tid: parentPort ? lowerThreadPriority() : null });

parentPort?.on("message", async (task) => {
  try {
    const op = OPS[task?.op];
    if (!op) throw new Error(`Unknown task: ${String(task?.op)}`);
    parentPort.postMessage({ id: task.id, ok: true, result: await op(task) });
  } catch (error) {
    const reason = error instanceof Refusal ? error.reason : "damaged";
    parentPort.postMessage({ id: task?.id, ok: false, error: { reason, message: error instanceof Error ? error.message : String(error) } });
  }
});
