// A PATH on which FFmpeg is not installed, for running the app as a machine
// without it: each PATH folder holding `ffmpeg` or `ffprobe` is replaced by a
// folder of links to everything else in it (node, sh and the rest stay).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const TOOLS = ["ffmpeg", "ffprobe", "ffmpeg.exe", "ffprobe.exe"];

export function pathWithoutFfmpeg(source = process.env.PATH ?? ""): { PATH: string; remove(): void } {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-no-ffmpeg-"));
  const folders = source.split(path.delimiter).filter(Boolean);
  const kept = folders.map((folder, index) => {
    if (!TOOLS.some((tool) => fs.existsSync(path.join(folder, tool)))) return folder;
    const copy = path.join(scratch, String(index));
    fs.mkdirSync(copy);
    for (const name of fs.readdirSync(folder)) {
      if (!TOOLS.includes(name)) fs.symlinkSync(path.join(folder, name), path.join(copy, name));
    }
    return copy;
  });
  const PATH = kept.join(path.delimiter);
  return { PATH, remove: () => fs.rmSync(scratch, { recursive: true, force: true }) };
}

/** Whether `tool` runs (and answers `args`) with this PATH: a check that the PATH really lacks FFmpeg. */
export function runsOn(PATH: string, tool: string, args = ["-version"]): boolean {
  try {
    execFileSync(tool, args, { env: { ...process.env, PATH }, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
