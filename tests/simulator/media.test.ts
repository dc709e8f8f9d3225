// Results served by the simulator itself: real-size clips at the model's
// resolution and the task's aspect ratio, in a look picked by the prompt (made
// with the system's FFmpeg when first needed, then cached), or the committed
// samples under 200 KB without it; with byte ranges so a <video> can seek,
// until the result URL expires (410).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { lookFor, LOOKS } from "@/simulator/clip-looks";
import { clipPath } from "@/simulator/clips";
import { inputs, launchSimulator, marker, sleep, waitFor } from "./harness";

const MEDIA = path.resolve("simulator/media");
const FAST = { SIMULATOR_PENDING_MS: "0", SIMULATOR_PENDING_JITTER_MS: "0" };
const sim = await launchSimulator(FAST);
afterAll(() => sim.stop());
beforeEach(() => sim.control.reset());

async function succeeded(simulator: typeof sim, input: Record<string, unknown>, model?: string) {
  const { taskId } = await simulator.submit(input, { model });
  return waitFor(async () => {
    const t = await simulator.task(taskId);
    return t.state === "SUCCESS" && t;
  });
}

async function resultUrl(m = marker("media")) {
  const url = (await succeeded(sim, inputs.text(`clip ${m}`, 2))).resultUrls[0]!;
  return { url, bytes: fs.readFileSync(clipPath(url.split("/").pop()!)!) };
}

/** What FFmpeg reads in the bytes a result URL serves. */
async function probeServed(url: string) {
  const response = await fetch(url);
  const bytes = Buffer.from(await response.arrayBuffer());
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "framehook-sim-probe-")), "clip.mp4");
  fs.writeFileSync(file, bytes);
  try {
    const out = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height:format=duration", "-of", "json", file]);
    const json = JSON.parse(out.toString()) as { streams: { codec_name: string; width: number; height: number }[]; format: { duration: string } };
    return { status: response.status, size: bytes.length, ...json.streams[0]!, duration: Number(json.format.duration), moovFirst: bytes.indexOf("moov") < bytes.indexOf("mdat") };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

describe("real-size clips", () => {
  test.each([
    ["alpha-2.5-text-to-video", "9:16", 720, 1280],
    ["alpha-2.5-text-to-video", "16:9", 1280, 720],
    ["alpha-2.5-text-to-video-480p", "1:1", 480, 480],
    ["alpha-2.5-text-to-video-480p", undefined, 854, 480],
  ])("%s asked for %s → an H.264 MP4 of %ix%i, 5 s, 0.9–2.8 MB, index first", async (model, aspect, width, height) => {
    const m = marker("real-size");
    const task = await succeeded(sim, { prompt: `clip ${m}`, ...(aspect ? { aspect_ratio: aspect } : {}) }, model);
    const served = await probeServed(task.resultUrls[0]!);
    expect(served).toMatchObject({ status: 200, codec_name: "h264", width, height, moovFirst: true });
    expect(served.duration).toBeCloseTo(5, 0);
    expect(served.size).toBeGreaterThan(900_000);
    expect(served.size).toBeLessThan(2_800_000);
  });

  test("without FFmpeg on PATH: the committed samples, and one line saying so", async () => {
    const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-no-ffmpeg-"));
    const bare = await launchSimulator({ ...FAST, SIMULATOR_LOG: "requests", PATH: emptyDir });
    try {
      const task = await succeeded(bare, { prompt: `clip ${marker("no-ffmpeg")}`, aspect_ratio: "9:16" }, "alpha-2.5-text-to-video");
      expect(task.resultUrls[0]).toMatch(/\/sample-\d\.mp4$/);
      const response = await fetch(task.resultUrls[0]!);
      expect(Buffer.from(await response.arrayBuffer()).equals(fs.readFileSync(clipPath(task.resultUrls[0]!.split("/").pop()!)!))).toBe(true);
      // Its stdout may still be on its way when the task is read back.
      await waitFor(() => bare.output.some((line) => line.includes("ffmpeg not found")));
      expect(bare.output.filter((line) => line.includes("ffmpeg not found"))).toHaveLength(1);
    } finally {
      bare.stop();
      fs.rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});

/** A frame from the middle of a clip, shrunk to 8×8 RGB: enough to tell two looks apart. */
function thumbnail(file: string): Buffer {
  return execFileSync("ffmpeg", ["-v", "error", "-ss", "2.5", "-i", file, "-frames:v", "1", "-vf", "scale=8:8", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]);
}

describe("looks", () => {
  test("made when first needed, never at start; the same prompt reuses its clip, another prompt's look looks different", async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-looks-"));
    const looks = await launchSimulator({ ...FAST, SIMULATOR_CLIP_LOOKS: String(LOOKS.length), SIMULATOR_CLIP_CACHE_DIR: cache });
    try {
      expect(fs.readdirSync(cache)).toEqual([]);
      const m = marker("looks");
      const first = `a paper boat ${m}`;
      const other = Array.from({ length: 50 }, (_, i) => `a lighthouse ${i} ${m}`).find((p) => lookFor(p) !== lookFor(first))!;
      const square = (prompt: string) => succeeded(looks, { prompt, aspect_ratio: "1:1" }, "alpha-2.5-text-to-video-480p");
      const names: string[] = [];
      for (const prompt of [first, first, other]) names.push((await square(prompt)).resultUrls[0]!);
      const [a, again, b] = names.map((url) => url.split("/").pop()!);
      expect([a, again, b]).toEqual([`clip-480p-1x1-${lookFor(first).name}.mp4`, a, `clip-480p-1x1-${lookFor(other).name}.mp4`]);

      for (const url of [names[0]!, names[2]!]) {
        const served = await probeServed(url);
        expect(served).toMatchObject({ status: 200, codec_name: "h264", width: 480, height: 480, moovFirst: true });
        expect(served.size).toBeGreaterThan(900_000);
        expect(served.size).toBeLessThan(2_800_000);
      }
      // Two clips in the cache, and their middle frames far apart in colour (0–255 per channel).
      expect(fs.readdirSync(cache).sort()).toEqual([a, b].sort());
      const [ta, tb] = [a, b].map((name) => thumbnail(path.join(cache, name!)));
      const distance = ta!.reduce((sum, byte, i) => sum + Math.abs(byte - tb![i]!), 0) / ta!.length;
      expect(distance).toBeGreaterThan(20);
    } finally {
      looks.stop();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe("sample clips", () => {
  const samples = fs.readdirSync(MEDIA).filter((f) => f.endsWith(".mp4"));

  test("there are a few, each an MP4 under 200 KB", () => {
    expect(samples.length).toBeGreaterThanOrEqual(3);
    for (const file of samples) {
      const bytes = fs.readFileSync(path.join(MEDIA, file));
      expect(bytes.length).toBeLessThan(200 * 1024);
      expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
    }
  });
});

describe("result URLs", () => {
  test("GET serves the whole clip as video/mp4 with Accept-Ranges, no API key needed", async () => {
    const { url, bytes } = await resultUrl();
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("HEAD answers the headers without a body", async () => {
    const { url, bytes } = await resultUrl();
    const response = await fetch(url, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  test.each([
    ["bytes=0-99", (n: number) => [0, 99, n]],
    ["bytes=1000-", (n: number) => [1000, n - 1, n]],
    ["bytes=-500", (n: number) => [n - 500, n - 1, n]],
    ["bytes=100-999999999", (n: number) => [100, n - 1, n]],
  ])("Range %s → 206 with Content-Range and exactly those bytes", async (range, expected) => {
    const { url, bytes } = await resultUrl();
    const [start, end, size] = expected(bytes.length) as [number, number, number];
    const response = await fetch(url, { headers: { Range: range } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
    expect(Number(response.headers.get("content-length"))).toBe(end - start + 1);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  test("a range past the end → 416 {code, message} with Content-Range bytes */size", async () => {
    const { url, bytes } = await resultUrl();
    const response = await fetch(url, { headers: { Range: `bytes=${bytes.length + 10}-` } });
    expect(response.status).toBe(416);
    expect(response.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
    expect(await response.json()).toEqual({ code: "range_not_satisfiable", message: expect.any(String) });
  });

  test("an unknown result, or another task's file name → 404 {code, message}", async () => {
    const { url } = await resultUrl();
    const other = url.replace(/clip-480p-16x9/, "clip-720p-16x9");
    for (const wrong of [`${sim.url}/media/task_nope/sample-1.mp4`, other, `${sim.url}/media/../config.ts`]) {
      const response = await fetch(wrong);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ code: "not_found", message: expect.any(String) });
    }
  });

  test("a scenario's resultTtlMs: the URL answers 410 {code, message} once it has expired", async () => {
    const m = marker("ttl");
    // Long enough that the first HEAD comes inside it on a loaded machine; the expiry is waited for.
    await sim.control.scenario({ match: m, resultTtlMs: 3_000 });
    const { url } = await resultUrl(m);
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
    const response = await waitFor(async () => {
      const answer = await fetch(url);
      return answer.status !== 200 && answer;
    }, 60_000, "the result URL to expire");
    expect(response.status).toBe(410);
    expect(await response.json()).toEqual({ code: "result_expired", message: expect.any(String) });
    // The task still lists the URL: the client must notice it is stale.
    const [task] = await sim.control.tasks(m);
    expect(task!.resultUrls).toEqual([url]);
  });

  test("SIMULATOR_RESULT_TTL_MS applies to every result, and other markers keep theirs", async () => {
    const keep = marker("keep");
    await sim.control.scenario({ match: keep, resultTtlMs: 600_000 });
    await sim.control.configure({ SIMULATOR_RESULT_TTL_MS: 200 });
    const short = await resultUrl();
    const kept = await resultUrl(keep);
    await sleep(300);
    expect((await fetch(short.url)).status).toBe(410);
    expect((await fetch(kept.url)).status).toBe(200);
  });
});
