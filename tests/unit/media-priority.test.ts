// Stills are background work: the FFmpeg processes that make one run at nice
// 10, so that on a busy machine the requests the app answers get the CPU
// first; a frame a person asked for ("use last frame") runs at the app's own
// priority. A still's tools are started by the tool host, a small process of
// its own, so that the app's thread never pays for a fork of the app's
// memory (lib/media/tool-host.ts). Each tool is reached through a shim first
// on PATH that records the niceness it was started with and its parent
// process (/proc/self/stat), then runs the real one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stopToolHost, toolHostPid } from "@/lib/media/tool-host";
import { closeVideoContainerWorkers, idleWorkerThreadIds, warmVideoContainerWorker } from "@/lib/media/video-container";
import { extractFrame, extractStill, toolchainVersion } from "@/lib/media/toolchain";
import { clip, hasFfmpeg } from "../support/media-fixtures";

const linux = process.platform === "linux";

describe.skipIf(!hasFfmpeg || !linux)("the priority of FFmpeg's runs", () => {
  let dir: string;
  let log: string;
  const originalPath = process.env.PATH;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "fh-priority-"));
    log = path.join(dir, "runs.log");
    const shims = path.join(dir, "bin");
    fs.mkdirSync(shims);
    for (const tool of ["ffmpeg", "ffprobe"]) {
      const real = execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
      // Fields 4 and 19 of /proc/<pid>/stat are the parent's pid and the nice value ($$ is the shim's shell, which exec turns into the tool).
      const script = [
        "#!/bin/sh",
        "n=$(cut -d' ' -f19 /proc/$$/stat); p=$(cut -d' ' -f4 /proc/$$/stat)",
        `echo "${tool} $n $p" >> "${log}"`,
        `exec "${real}" "$@"`,
      ].join("\n");
      fs.writeFileSync(path.join(shims, tool), `${script}\n`, { mode: 0o755 });
    }
    process.env.PATH = `${shims}${path.delimiter}${originalPath}`;
    fs.writeFileSync(path.join(dir, "clip.mp4"), clip({ seconds: 2 }));
  });

  afterAll(async () => {
    await stopToolHost();
    process.env.PATH = originalPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Each tool run as "tool nice parent", the parent named "app" (this process), "host" (the tool host) or by its pid. */
  const runs = () =>
    fs
      .readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => {
        const [tool, nice, parent] = line.split(" ");
        const who = Number(parent) === process.pid ? "app" : Number(parent) === toolHostPid() ? "host" : parent;
        return `${tool} ${nice} ${who}`;
      });
  const ownNice = () => os.getPriority();

  test("a still: ffprobe and ffmpeg both at nice 10 (or the app's own, if higher), started by the tool host", async () => {
    fs.writeFileSync(log, "");
    const still = await extractStill({ file: path.join(dir, "clip.mp4") });
    expect(still?.contentType).toBe("image/jpeg");
    const expected = Math.max(ownNice(), 10);
    expect(runs()).toEqual([`ffprobe ${expected} host`, `ffmpeg ${expected} host`]);
  });

  test("the tool host, killed, is started anew for the next still", async () => {
    await extractStill({ file: path.join(dir, "clip.mp4") });
    const first = toolHostPid()!;
    process.kill(first, "SIGKILL");
    await new Promise<void>((resolve) => {
      const poll = () => (toolHostPid() === undefined ? resolve() : setTimeout(poll, 10));
      poll();
    });
    fs.writeFileSync(log, "");
    const still = await extractStill({ file: path.join(dir, "clip.mp4") });
    expect(still?.contentType).toBe("image/jpeg");
    expect(toolHostPid()).not.toBe(first);
    expect(runs()).toEqual([`ffprobe ${Math.max(ownNice(), 10)} host`, `ffmpeg ${Math.max(ownNice(), 10)} host`]);
  });

  test("the check a page makes (ffmpeg -version, is FFmpeg here?) is started by the tool host too, never forked from the app", async () => {
    fs.writeFileSync(log, "");
    expect(await toolchainVersion()).toMatch(/^ffmpeg version/);
    expect(runs()).toEqual([`ffmpeg ${Math.max(ownNice(), 10)} host`]);
  });

  test("a frame a person asked for: at the app's own priority", async () => {
    fs.writeFileSync(log, "");
    expect(await extractFrame({ file: path.join(dir, "clip.mp4"), which: "last", output: path.join(dir, "last.png") })).toBe(true);
    expect(runs()).toEqual([`ffprobe ${ownNice()} app`, `ffmpeg ${ownNice()} app`]);
  });
});

describe.skipIf(!linux)("the priority of the threads that read uploaded videos", () => {
  afterAll(() => closeVideoContainerWorkers());

  // Field 19 of /proc/self/task/<tid>/stat is that thread's nice value.
  const threadNice = (tid: number) => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);

  test("a container worker thread runs at nice 10; the thread that answers requests keeps its own", async () => {
    const own = os.getPriority();
    await warmVideoContainerWorker();
    const [tid] = idleWorkerThreadIds();
    expect(tid).toEqual(expect.any(Number));
    expect(threadNice(tid!)).toBe(Math.max(own, 10));
    expect(os.getPriority()).toBe(own);
  });
});
