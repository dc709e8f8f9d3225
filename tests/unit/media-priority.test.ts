// Stills are background work: the FFmpeg processes that make one run at nice
// 10, so that on a busy machine the requests the app answers get the CPU
// first; a frame a person asked for ("use last frame") runs at the app's own
// priority. Each tool is reached through a shim first on PATH that records
// the niceness it was started with (/proc/self/stat), then runs the real one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { extractFrame, extractStill } from "@/lib/media/toolchain";
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
      // Field 19 of /proc/<pid>/stat is the nice value ($$ is the shim's shell, which exec turns into the tool).
      // The app lowers a child's priority just after starting it: the shim gives it up to a second to land.
      const script = [
        "#!/bin/sh",
        "i=0",
        "while :; do n=$(cut -d' ' -f19 /proc/$$/stat); [ \"$n\" -ge 10 ] || [ $i -ge 100 ] && break; i=$((i+1)); sleep 0.01; done",
        `echo "${tool} $n" >> "${log}"`,
        `exec "${real}" "$@"`,
      ].join("\n");
      fs.writeFileSync(path.join(shims, tool), `${script}\n`, { mode: 0o755 });
    }
    process.env.PATH = `${shims}${path.delimiter}${originalPath}`;
    fs.writeFileSync(path.join(dir, "clip.mp4"), clip({ seconds: 2 }));
  });

  afterAll(() => {
    process.env.PATH = originalPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const runs = () => fs.readFileSync(log, "utf8").trim().split("\n");
  const ownNice = () => os.getPriority();

  test("a still: ffprobe and ffmpeg both at nice 10 (or the app's own, if higher)", async () => {
    fs.writeFileSync(log, "");
    const still = await extractStill({ file: path.join(dir, "clip.mp4") });
    expect(still?.contentType).toBe("image/jpeg");
    const expected = Math.max(ownNice(), 10);
    expect(runs()).toEqual([`ffprobe ${expected}`, `ffmpeg ${expected}`]);
  });

  test("a frame a person asked for: at the app's own priority", async () => {
    fs.writeFileSync(log, "");
    expect(await extractFrame({ file: path.join(dir, "clip.mp4"), which: "last", output: path.join(dir, "last.png") })).toBe(true);
    expect(runs()).toEqual([`ffprobe ${ownNice()}`, `ffmpeg ${ownNice()}`]);
  });
});
