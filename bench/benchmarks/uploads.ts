// 9. Uploads: the app's memory while large uploads stream to local storage
// (flat, not growing with the file: a 20 MB upload is the baseline), and the
// time to check a 1080p clip (probe + remux) at POST /api/uploads, beside FFmpeg's. The
// media is made here with the system's FFmpeg, in a temporary directory.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { memoryOf } from "../proc";
import type { Section } from "../report";
import type { Stack } from "../stack";

const MB = 1024 * 1024;
const REFERENCE = "delta-h3/reference-to-video";
const FIELD = "reference_video_urls";
/** An image field: a first frame (up to 40 MP, lib/models/catalog.ts). */
const FRAME_MODEL = "alpha-2.5-first-last-frame-480p";
const FRAME_FIELD = "first_frame_url";
/** The largest file any model field takes (reference videos), from lib/models/catalog.ts. */
const FIELD_MAX = 100 * MB;
const CHECK_RUNS = 5;

const ffmpeg = (args: string[]) => execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });

export async function benchUploads(stack: Stack): Promise<Section> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-bench-uploads-"));
  try {
    // Real clips padded to size at a constant bitrate (x264 filler data): valid for the reference field as they are.
    const clip20 = cbrClip(dir, "20mb.mp4", 20 * MB);
    const clip100 = cbrClip(dir, "100mb.mp4", FIELD_MAX - 2 * MB);
    const body200 = path.join(dir, "200mb.bin");
    fs.writeFileSync(body200, Buffer.concat([fs.readFileSync(clip100), Buffer.alloc(200 * MB - fs.statSync(clip100).size, 7)]));
    const hd = hdClip(dir);

    // A first upload loads the code paths (and their memory) the measured ones reuse.
    await uploadOnce(stack, clip20, { chunked: false });
    const small = await uploadOnce(stack, clip20, { chunked: false });
    // 200 MB is past every field's limit: sent without a length, the route streams the first
    // 100 MB to its temporary file, reads and drops the rest, then answers 413.
    const huge = await uploadOnce(stack, body200, { chunked: true });
    const large = await uploadOnce(stack, clip100, { chunked: false });

    const checks: number[] = [];
    for (let i = 0; i < CHECK_RUNS; i++) checks.push((await uploadOnce(stack, hd, { chunked: false })).ms);
    const tools = toolchainAlone(hd, dir);
    const hdSize = fs.statSync(hd).size;

    // A 12 MP photo (4000 × 3000 JPEG) to a first-frame field: sharp decodes and re-encodes it, on libuv's threads.
    const photo = path.join(dir, "photo.jpg");
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=4000x3000:rate=1", "-frames:v", "1", "-q:v", "3", photo]);
    const photoRuns: Upload[] = [];
    for (let i = 0; i < CHECK_RUNS; i++) photoRuns.push(await uploadOnce(stack, photo, { chunked: false, target: { model: FRAME_MODEL, field: FRAME_FIELD, contentType: "image/jpeg" } }));
    const photoMs = [...photoRuns.map((r) => r.ms)].sort((a, b) => a - b)[Math.floor(CHECK_RUNS / 2)]!;
    const photoFfmpegMs = ffmpegPhoto(photo, dir);
    const photoGrowth = Math.max(...photoRuns.map((r) => r.peakRss)) / MB - photoRuns[0]!.idleRss / MB;

    const growth = (run: Upload) => (run.peakRss - run.idleRss) / MB;
    const [g20, g100, g200] = [growth(small), growth(large), growth(huge)];
    // Flat: at most 1.5 × the 20 MB upload's growth (with 8 MB of room for sampling noise when that growth is tiny).
    const allowed = Math.max(1.5 * g20, g20 + 8);
    // Each upload starts from the memory the one before left: V8 keeps its heap's slack rather than returning it at once.
    const highWater = round(Math.max(small.peakRss, huge.peakRss, large.peakRss) / MB);
    const median = [...checks].sort((a, b) => a - b)[Math.floor(checks.length / 2)]!;
    return {
      title: "9. Uploads",
      setup: `POST /api/uploads (next start, MEDIA_STORAGE=local) for ${REFERENCE}'s reference videos (up to ${FIELD_MAX / MB} MB), from the bench over loopback, one new visitor per upload: H.264 clips padded to ${(small.size / MB).toFixed(0)} MB and ${(large.size / MB).toFixed(0)} MB (kept: sniffed, probed and remuxed by mediabunny on a worker thread, hashed, stored), and a 200 MB body sent chunked (the route writes the first ${FIELD_MAX / MB} MB, reads at most 1 MB more, answers 413 and closes the connection). The app's RSS (next start, its worker threads and its Node children, from /proc) is sampled every 50 ms. Order: a warm-up 20 MB upload, 20 MB, 200 MB, then the large clip, each growth from the RSS just before it. Then a 1080p clip (1920 × 1080, 5 s, 24 fps, ${(hdSize / MB).toFixed(1)} MB) uploaded ${CHECK_RUNS} times, and a 12 MP photo (4000 × 3000 JPEG, ${(fs.statSync(photo).size / MB).toFixed(1)} MB) ${CHECK_RUNS} times to ${FRAME_MODEL}'s first frame (sharp: decoded, oriented, re-encoded without metadata).`,
      figures: [
        { label: "RSS growth, 200 MB body streamed (refused at the 100 MB limit)", value: round(g200), unit: "MB", baseline: { label: "a 20 MB upload", value: round(g20) } },
        { label: `RSS growth, ${(large.size / MB).toFixed(0)} MB upload kept`, value: round(g100), unit: "MB", baseline: { label: "a 20 MB upload", value: round(g20) } },
        { label: "App RSS high-water mark over the three uploads", value: highWater, unit: "MB", baseline: { label: "idle before the 20 MB upload", value: round(small.idleRss / MB) } },
        { label: `Time to take a ${(large.size / MB).toFixed(0)} MB clip (stream, check, remux, store)`, value: Math.round(large.ms), unit: "ms" },
        { label: "Time to check a 1080p clip at the route (median)", value: Math.round(median), unit: "ms", baseline: { label: "the FFmpeg path: ffprobe + remux alone, the arguments uploads used", value: Math.round(tools.probeMs + tools.remuxMs) } },
        { label: "…of which ffprobe (-count_packets)", value: Math.round(tools.probeMs), unit: "ms" },
        { label: "…of which the remux (-c copy, +faststart)", value: Math.round(tools.remuxMs), unit: "ms" },
        { label: "Time to check a 12 MP JPEG at the route (median)", value: Math.round(photoMs), unit: "ms", baseline: { label: "the FFmpeg path: its re-encode alone, the arguments uploads used", value: Math.round(photoFfmpegMs) } },
        { label: `App RSS growth over ${CHECK_RUNS} 12 MP JPEG uploads (high-water mark)`, value: round(photoGrowth), unit: "MB", baseline: { label: "a 20 MB clip's upload", value: round(g20) } },
      ],
      targets: [
        {
          label: "memory flat while uploading (≤ 1.5 × the 20 MB upload's growth)",
          met: g200 <= allowed && g100 <= allowed,
          detail: `+${g200.toFixed(1)} MB for 200 MB, +${g100.toFixed(1)} MB for ${(large.size / MB).toFixed(0)} MB vs +${g20.toFixed(1)} MB for 20 MB (allowed ${allowed.toFixed(1)} MB)`,
        },
        {
          label: "answers as a user would see them",
          met: small.status === 201 && large.status === 201 && huge.status === 413 && checks.length === CHECK_RUNS && photoRuns.every((r) => r.status === 201),
          detail: `20 MB ${small.status}, ${(large.size / MB).toFixed(0)} MB ${large.status}, 200 MB ${huge.status}, 12 MP JPEG ${photoRuns.map((r) => r.status).join("/")}`,
        },
      ],
      notes: [
        `No field takes 200 MB (reference videos stop at ${FIELD_MAX / MB} MB), so the 200 MB case is the route meeting a body twice its limit: the limit to disk, at most 1 MB more read, then the 413 and the connection closed. The ${(large.size / MB).toFixed(0)} MB clip stands for the largest kept upload.`,
        "The route streams the body through a counting Transform into a temporary file; mediabunny reads that file (probe, remux) on a worker thread of the app, counted in its RSS. Growth is measured from the RSS just before each upload, and V8 does not give its heap back at once, so an upload that fits in the slack an earlier one left shows little growth: the high-water mark over all three is the figure that would grow with the file if anything buffered it.",
        "The check of a 1080p clip is mediabunny reading every packet through (no decoding) and the remux copying them; the route adds the body's transfer, the sniff, the hash and the store. The baseline is the FFmpeg path uploads used before (two processes), timed on the same clip in the same run.",
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Upload = { status: number; ms: number; idleRss: number; peakRss: number; peakTools: number; size: number };

/** A 1080p H.264 clip (1920 × 1080, 5 s, 24 fps, about 3 MB), as a phone or an editor exports one. */
export function hdClip(dir: string): string {
  const file = path.join(dir, "1080p.mp4");
  ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=24", "-t", "5", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-movflags", "+faststart", file]);
  return file;
}

/** A new visitor's cookie: POST /api/uploads skips proxy.ts, which issues it; a browser has one from the page. */
async function visitorCookie(appUrl: string): Promise<string> {
  // A connection of its own each time (agent: false): a pooled one may be closed by the app's keep-alive timeout while clips are made.
  const cookie = await new Promise<string | undefined>((resolve, reject) =>
    http
      .get(new URL("/api/generations?limit=1", appUrl), { agent: false }, (response) => {
        response.resume();
        resolve(response.headers["set-cookie"]?.[0]?.split(";")[0]);
      })
      .once("error", reject),
  );
  if (!cookie) throw new Error("no visitor cookie");
  return cookie;
}

/** POSTs `file` to /api/uploads as a reference video of a new visitor; resolves with the answer's status. */
export async function postUpload(
  appUrl: string,
  file: string,
  { chunked = false, cookie, target = { model: REFERENCE, field: FIELD, contentType: "video/mp4" } }: { chunked?: boolean; cookie?: string; target?: UploadTarget } = {},
): Promise<number> {
  const visitor = cookie ?? (await visitorCookie(appUrl));
  const size = fs.statSync(file).size;
  const url = new URL(`/api/uploads?model=${encodeURIComponent(target.model)}&field=${target.field}`, appUrl);
  return new Promise<number>((resolve, reject) => {
    let status: number | undefined;
    const request = http.request(url, { method: "POST", agent: false, headers: { Cookie: visitor, "Content-Type": target.contentType, ...(chunked ? {} : { "Content-Length": String(size) }) } }, (response) => {
      status = response.statusCode ?? 0;
      response.resume();
      response.once("end", () => resolve(status!));
      response.once("close", () => resolve(status!));
    });
    // A refused body (413) is answered, then the connection closed while the rest is still being sent:
    // the write fails (EPIPE, ECONNRESET) around the answer. The answer, if it came, is the outcome.
    // Either may come more than once (EPIPE, then ECONNRESET): every one is handled.
    request.on("error", (error) => setTimeout(() => (status === undefined ? reject(error) : resolve(status)), 1000));
    Readable.from(fs.createReadStream(file)).pipe(request);
  });
}

/** Uploads in flight at once beside a load (benchmarks 1 and 7): the media pool's slots on this 2-core machine. */
export const UPLOADS_BESIDE = 2;

/** Runs `load` while UPLOADS_BESIDE loops each upload `clip` back to back, as new visitors; stops them when it ends. */
export async function withUploadsBeside<T>(appUrl: string, clip: string, load: () => Promise<T>): Promise<{ result: T; statuses: number[] }> {
  let running = true;
  const statuses: number[] = [];
  const loops = Array.from({ length: UPLOADS_BESIDE }, async () => {
    while (running) statuses.push(await postUpload(appUrl, clip).catch(() => 0));
  });
  try {
    return { result: await load(), statuses };
  } finally {
    running = false;
    await Promise.all(loops);
  }
}

/** How many uploads answered each status (0: the connection failed). */
export const countStatuses = (statuses: number[]) => statuses.reduce<Record<string, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

/** Where an upload goes: a model's field, and the body's declared type. */
type UploadTarget = { model: string; field: string; contentType: string };

async function uploadOnce(stack: Stack, file: string, { chunked, target }: { chunked: boolean; target?: UploadTarget }): Promise<Upload> {
  const cookie = await visitorCookie(stack.appUrl);
  const size = fs.statSync(file).size;
  const idleRss = memoryOf(stack.appPid).app;
  let peakRss = idleRss;
  let peakTools = 0;
  const sampler = setInterval(() => {
    const { app, tools } = memoryOf(stack.appPid);
    peakRss = Math.max(peakRss, app);
    peakTools = Math.max(peakTools, tools);
  }, 50);
  const started = performance.now();
  try {
    const status = await postUpload(stack.appUrl, file, { chunked, cookie, target });
    return { status, ms: performance.now() - started, idleRss, peakRss, peakTools, size };
  } finally {
    clearInterval(sampler);
  }
}

/** A 5 s H.264 clip of about `bytes`, at a constant bitrate made up with filler data. */
function cbrClip(dir: string, name: string, bytes: number): string {
  const file = path.join(dir, name);
  const bitrate = Math.floor((bytes * 8) / 5);
  ffmpeg(["-f", "lavfi", "-i", "testsrc=size=640x360:rate=24", "-t", "5", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-b:v", String(bitrate), "-minrate", String(bitrate), "-maxrate", String(bitrate), "-bufsize", String(bitrate), "-x264-params", "nal-hrd=cbr", "-movflags", "+faststart", file]);
  return file;
}

/** The toolchain's two calls on the 1080p clip, run by the bench itself with lib/media/toolchain.ts's arguments. */
function toolchainAlone(file: string, dir: string) {
  const time = (run: () => void) => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };
  const probeMs = time(() =>
    execFileSync("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=width,height,codec_name,avg_frame_rate,r_frame_rate,nb_read_packets,duration:format=duration,format_name", "-of", "json", "--", file], { stdio: ["ignore", "pipe", "pipe"] }),
  );
  const remuxMs = time(() =>
    ffmpeg(["-threads", "1", "-max_pixels", "40000000", "-i", file, "-map", "0:v:0", "-map", "0:a:0?", "-c", "copy", "-movflags", "+faststart", "-f", "mp4", "-map_metadata", "-1", "-map_chapters", "-1", path.join(dir, "remuxed.mp4")]),
  );
  return { probeMs, remuxMs };
}

/** FFmpeg's re-encode of the photo, with the arguments image uploads used (lib/media/toolchain.ts's ffmpegRewrite), run by the bench itself. */
function ffmpegPhoto(file: string, dir: string): number {
  const started = performance.now();
  ffmpeg(["-threads", "1", "-max_pixels", "40000000", "-protocol_whitelist", "file", "-f", "jpeg_pipe", "-i", `file:${file}`, "-map", "0:v:0", "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-f", "image2", "-map_metadata", "-1", "-map_chapters", "-1", path.join(dir, "photo-ffmpeg.jpg")]);
  return performance.now() - started;
}

const round = (value: number) => Number(value.toFixed(1));
