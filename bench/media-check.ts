// An upload's check and rewrite, timed on the two paths in the same run: the
// npm path (sharp for a 12 MP JPEG; mediabunny on a worker thread for a 5 s
// 1080p H.264 clip with sound, and a 69 MB one near the upload limit) against today's FFmpeg path (the header read +
// `ffmpeg` re-encode; `ffprobe` + `ffmpeg` remux). Median and range of 5 runs
// each, the paths taken in turn; the first npm video call (which starts its
// worker) is reported apart. While each path runs, the delay of this thread's
// event loop is measured: the thread that would answer requests. Memory is
// measured apart, each path 5 times in a fresh process of its own (a process's
// resident memory seldom shrinks, so in one process the first path to grow it
// would be blamed for all): that process's resident memory (worker threads
// included) before and at its peak, and FFmpeg's (its child processes).
//
//   npx tsx --conditions=react-server bench/media-check.ts
//
// Needs FFmpeg on PATH to make the samples and for the path it is compared
// with. Touches no database and no shared file: safe beside other runs.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { reencodeImage } from "../lib/media/image-check";
import { readImageSize } from "../lib/media/sniff";
import { ffprobeVideo, ffmpegRewrite } from "../lib/media/toolchain";
import { closeVideoContainerWorkers, probeVideoContainer, remuxVideoContainer } from "../lib/media/video-container";
import { memoryOf } from "./proc";

const RUNS = 5;
/** The worker's own functions, imported to run on this thread: what the worker spares the thread that answers requests. */
type WorkerModule = { probe: (task: object) => Promise<unknown>; remux: (task: object) => Promise<unknown> };
const onThisThread = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../lib/media/video-container-worker.mjs")).href)) as WorkerModule;
const MAX_PIXELS = 40_000_000;
const dir = process.env.MEDIA_CHECK_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "framehook-media-check-"));
const file = (name: string) => path.join(dir, name);
const ffmpeg = (args: string[]) => execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args], { stdio: ["ignore", "ignore", "inherit"] });

if (!process.env.MEDIA_CHECK_DIR) ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i", "sine=frequency=440", "-t", "5", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "4M", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-movflags", "+faststart", file("clip.mp4")]);
// Near a reference video's 100 MB limit: 30 s of 720p at 25 Mbit/s with sound (about 69 MB).
if (!process.env.MEDIA_CHECK_DIR) ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i", "sine", "-t", "30", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "25M", "-maxrate", "25M", "-bufsize", "5M", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", file("big.mp4")]);
if (!process.env.MEDIA_CHECK_DIR) ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=4000x3000:rate=1", "-frames:v", "1", "-q:v", "3", file("photo.jpg")]);

type Sample = { ms: number; appPeakMb: number; ffmpegPeakMb: number; loopMaxMs: number };

async function measure(run: () => Promise<unknown>): Promise<Sample> {
  let appPeak = 0;
  let toolPeak = 0;
  const sample = () => {
    const { app, tools } = memoryOf(process.pid);
    appPeak = Math.max(appPeak, app);
    toolPeak = Math.max(toolPeak, tools);
  };
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const sampler = setInterval(sample, 5);
  loop.enable();
  sample();
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  loop.disable();
  clearInterval(sampler);
  sample();
  if (result === false || result === null || (typeof result === "object" && result !== null && "ok" in result && result.ok === false)) {
    throw new Error(`A check failed: ${JSON.stringify(result)}`);
  }
  return { ms, appPeakMb: appPeak / 2 ** 20, ffmpegPeakMb: toolPeak / 2 ** 20, loopMaxMs: loop.max / 1e6 };
}

const paths: Record<string, () => Promise<unknown>> = {
  "12 MP JPEG · npm (sharp)": () => reencodeImage({ input: file("photo.jpg"), output: file("npm.jpg"), format: "jpeg", maxPixels: MAX_PIXELS }),
  "12 MP JPEG · FFmpeg": async () => {
    const size = await readImageSize(file("photo.jpg"), "jpeg");
    if (!size) return null;
    return ffmpegRewrite({ input: file("photo.jpg"), output: file("ffmpeg.jpg"), format: "jpeg", maxPixels: MAX_PIXELS });
  },
  "1080p clip · npm probe (mediabunny)": () => probeVideoContainer({ file: file("clip.mp4"), format: "mp4" }),
  "1080p clip · npm remux (mediabunny)": () => remuxVideoContainer({ input: file("clip.mp4"), output: file("npm.mp4"), format: "mp4" }),
  "1080p clip · npm probe + remux": async () => {
    const probe = await probeVideoContainer({ file: file("clip.mp4"), format: "mp4" });
    return probe.ok ? remuxVideoContainer({ input: file("clip.mp4"), output: file("npm.mp4"), format: "mp4" }) : probe;
  },
  "69 MB 720p clip · npm probe + remux": async () => {
    const probe = await probeVideoContainer({ file: file("big.mp4"), format: "mp4" });
    return probe.ok ? remuxVideoContainer({ input: file("big.mp4"), output: file("npm-big.mp4"), format: "mp4" }) : probe;
  },
  "1080p clip · ffprobe": () => ffprobeVideo({ file: file("clip.mp4") }),
  "1080p clip · ffmpeg remux": () => ffmpegRewrite({ input: file("clip.mp4"), output: file("ffmpeg.mp4"), format: "mp4", maxPixels: MAX_PIXELS }),
  "1080p clip · ffprobe + ffmpeg remux": async () => {
    const probe = await ffprobeVideo({ file: file("clip.mp4") });
    return probe ? ffmpegRewrite({ input: file("clip.mp4"), output: file("ffmpeg.mp4"), format: "mp4", maxPixels: MAX_PIXELS }) : null;
  },
  "69 MB 720p clip · npm probe + remux, on the request thread (no worker)": async () => {
    const task = { file: file("big.mp4"), input: file("big.mp4"), output: file("npm-big-main.mp4"), format: "mp4", maxInputBytes: 2 ** 30 };
    await onThisThread.probe(task);
    return onThisThread.remux(task);
  },
  "69 MB 720p clip · ffprobe + ffmpeg remux": async () => {
    const probe = await ffprobeVideo({ file: file("big.mp4") });
    return probe ? ffmpegRewrite({ input: file("big.mp4"), output: file("ffmpeg-big.mp4"), format: "mp4", maxPixels: MAX_PIXELS }) : null;
  },
};

const ONLY = process.env.MEDIA_CHECK_ONLY;
if (ONLY) {
  // A child of the run below: one path, five times, then its memory as JSON.
  const baseline = memoryOf(process.pid).app;
  const list: Sample[] = [];
  for (let i = 0; i < RUNS; i++) list.push(await measure(paths[ONLY]!));
  await closeVideoContainerWorkers();
  console.log(JSON.stringify({ baselineMb: baseline / 2 ** 20, appPeakMb: Math.max(...list.map((s) => s.appPeakMb)), ffmpegPeakMb: Math.max(...list.map((s) => s.ffmpegPeakMb)) }));
  process.exit(0);
}

const baselineMb = memoryOf(process.pid).app / 2 ** 20;
const first = await measure(paths["1080p clip · npm probe + remux"]!);
const samples = new Map<string, Sample[]>(Object.keys(paths).map((name) => [name, []]));
for (let round = 0; round < RUNS; round++) {
  for (const [name, run] of Object.entries(paths)) samples.get(name)!.push(await measure(run));
}
await closeVideoContainerWorkers();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (n: number, digits = 0) => n.toFixed(digits);
console.log(`Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")} at the end; app RSS before: ${fmt(baselineMb)} MB`);
console.log(`First npm probe + remux (starts the worker): ${fmt(first.ms)} ms\n`);
console.log("| path | median ms | min–max ms | app RSS peak MB | FFmpeg RSS peak MB | event-loop max delay ms |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [name, list] of samples) {
  const ms = list.map((s) => s.ms);
  console.log(
    `| ${name} | ${fmt(median(ms))} | ${fmt(Math.min(...ms))}–${fmt(Math.max(...ms))} | ${fmt(Math.max(...list.map((s) => s.appPeakMb)))} | ${fmt(Math.max(...list.map((s) => s.ffmpegPeakMb)))} | ${fmt(median(list.map((s) => s.loopMaxMs)), 1)} |`,
  );
}
console.log(`\nApp RSS after: ${fmt(memoryOf(process.pid).app / 2 ** 20)} MB (one process, every path)\n`);

console.log("| path, 5 runs in a fresh process | app RSS before MB | app RSS peak MB | FFmpeg RSS peak MB |");
console.log("|---|---:|---:|---:|");
for (const name of ["12 MP JPEG · npm (sharp)", "12 MP JPEG · FFmpeg", "1080p clip · npm probe + remux", "1080p clip · ffprobe + ffmpeg remux", "69 MB 720p clip · npm probe + remux", "69 MB 720p clip · ffprobe + ffmpeg remux"]) {
  const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], { env: { ...process.env, MEDIA_CHECK_ONLY: name, MEDIA_CHECK_DIR: dir }, encoding: "utf8" });
  const line = child.stdout.trim().split("\n").pop() ?? "";
  try {
    const m = JSON.parse(line) as { baselineMb: number; appPeakMb: number; ffmpegPeakMb: number };
    console.log(`| ${name} | ${fmt(m.baselineMb)} | ${fmt(m.appPeakMb)} | ${fmt(m.ffmpegPeakMb)} |`);
  } catch {
    console.log(`| ${name} | failed: ${child.stderr.trim().split("\n").pop()} | | |`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
