// Result clips of real size: what a real gateway returns for a 5 s task, at
// the resolution of the model (480p at 1.5 Mbit/s, 720p at 4 Mbit/s, H.264,
// +faststart) and the aspect ratio the task asked for. They are made once with
// the system's FFmpeg into a cache folder outside the repository, shared by
// every simulator process on the machine; without FFmpeg, results are the
// small committed samples in media/ (and one line says so).
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const SAMPLES_DIR = path.join(import.meta.dirname, "media");
export const SAMPLES = ["sample-1.mp4", "sample-2.mp4", "sample-3.mp4"];

export type ClipMode = "real-size" | "samples";
type Recipe = { name: string; width: number; height: number; kbps: number };

const DURATION_SECONDS = 5;
const ASPECTS = { "16:9": "16x9", "9:16": "9x16", "1:1": "1x1" } as const;
const RESOLUTIONS = { "480p": { short: 480, long: 854, kbps: 1500 }, "720p": { short: 720, long: 1280, kbps: 4000 } } as const;

export const RECIPES: Recipe[] = Object.entries(RESOLUTIONS).flatMap(([resolution, { short, long, kbps }]) =>
  Object.values(ASPECTS).map((aspect) => ({
    name: `clip-${resolution}-${aspect}.mp4`,
    width: aspect === "9x16" ? short : aspect === "1x1" ? short : long,
    height: aspect === "16x9" ? short : aspect === "1x1" ? short : long,
    kbps,
  })),
);

/** Moving test pattern with a little grain, so frames differ and the encoder has real work to do. */
function ffmpegArgs(recipe: Recipe, out: string): string[] {
  const source = `testsrc2=size=${recipe.width}x${recipe.height}:rate=24:duration=${DURATION_SECONDS},noise=alls=12:allf=t`;
  const rate = `${recipe.kbps}k`;
  return ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-c:v", "libx264", "-preset", "ultrafast", "-threads", "1",
    "-b:v", rate, "-maxrate", rate, "-bufsize", rate, "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", out];
}

/** The cache folder: named by the recipes, so that changing one makes a fresh set. */
export function defaultClipCacheDir(): string {
  const hash = createHash("sha256").update(JSON.stringify(RECIPES.map((r) => ffmpegArgs(r, "")))).digest("hex").slice(0, 12);
  return path.join(os.tmpdir(), `framehook-simulator-clips-${hash}`);
}

/** Where the file of a result named `name` lives (for tests that compare bytes); null for a name the simulator never serves. */
export function clipPath(name: string, cacheDir = defaultClipCacheDir()): string | null {
  if (SAMPLES.includes(name)) return path.join(SAMPLES_DIR, name);
  return RECIPES.some((r) => r.name === name) ? path.join(cacheDir, name) : null;
}

/** The clip a task's result is: by the model's resolution (a `-480p` id, else 720p) and `input.aspect_ratio`. */
export function clipNameFor({ model, input }: { model: string; input: Record<string, unknown> }): string {
  const resolution = model.endsWith("-480p") ? "480p" : "720p";
  const asked = input.aspect_ratio;
  const aspect = typeof asked === "string" && asked in ASPECTS ? ASPECTS[asked as keyof typeof ASPECTS] : ASPECTS["16:9"];
  return `clip-${resolution}-${aspect}.mp4`;
}

export function createClipLibrary({ mode, cacheDir }: { mode: ClipMode; cacheDir: string }) {
  const dir = cacheDir || defaultClipCacheDir();
  const made = new Map<string, Promise<string>>();
  let ffmpeg: boolean | undefined;

  function hasFfmpeg(): boolean {
    if (ffmpeg === undefined) {
      try {
        execFileSync("ffmpeg", ["-version"], { stdio: "ignore", timeout: 5_000, windowsHide: true });
        ffmpeg = true;
      } catch {
        ffmpeg = false;
        console.log("[simulator] ffmpeg not found on PATH: results are the small sample clips in simulator/media (install FFmpeg for real-size clips)");
      }
    }
    return ffmpeg;
  }

  function make(recipe: Recipe): Promise<string> {
    let file = made.get(recipe.name);
    if (!file) {
      file = makeOnce(recipe, dir);
      made.set(recipe.name, file);
    }
    return file;
  }

  return {
    dir,
    /** The result file name of a task that succeeded (`sampleIndex` picks a sample when clips are not made). */
    nameFor(task: { model: string; input: Record<string, unknown> }, sampleIndex: number): string {
      if (mode === "samples" || !hasFfmpeg()) return SAMPLES[sampleIndex % SAMPLES.length]!;
      return clipNameFor(task);
    },
    /** The file to serve for `name`, made first if need be; a clip that cannot be made is served as a sample. Null: no such name. */
    async file(name: string): Promise<string | null> {
      if (SAMPLES.includes(name)) return path.join(SAMPLES_DIR, name);
      const recipe = RECIPES.find((r) => r.name === name);
      if (!recipe) return null;
      try {
        return await make(recipe);
      } catch (error) {
        console.error(`[simulator] could not make ${name}, serving a sample instead: ${error instanceof Error ? error.message : String(error)}`);
        return path.join(SAMPLES_DIR, SAMPLES[0]!);
      }
    },
    /** Makes every clip ahead of the first request for it (a no-op once the cache holds them). */
    async prepare(): Promise<{ made: number; ms: number }> {
      const started = Date.now();
      if (mode === "samples" || !hasFfmpeg()) return { made: 0, ms: 0 };
      for (const recipe of RECIPES) await make(recipe);
      return { made: RECIPES.length, ms: Date.now() - started };
    },
  };
}

export type ClipLibrary = ReturnType<typeof createClipLibrary>;

/**
 * Makes one clip unless the cache has it. Another process making the same clip
 * holds `<name>.lock` (a folder: creating one is atomic); this one waits for
 * the file, or takes the lock over once it is older than any encode takes.
 */
async function makeOnce(recipe: Recipe, dir: string): Promise<string> {
  const file = path.join(dir, recipe.name);
  const lock = `${file}.lock`;
  await fs.promises.mkdir(dir, { recursive: true });
  for (const deadline = Date.now() + 180_000; ; ) {
    if (fs.existsSync(file)) return file;
    try {
      await fs.promises.mkdir(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (Date.now() > deadline) throw new Error(`timed out waiting for another process to make ${recipe.name}`);
      const age = Date.now() - (await fs.promises.stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > 60_000) await fs.promises.rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (!fs.existsSync(file)) {
        const partial = `${file}.${process.pid}.partial`;
        try {
          await encode(ffmpegArgs(recipe, partial));
          await fs.promises.rename(partial, file);
        } finally {
          await fs.promises.rm(partial, { force: true });
        }
      }
      return file;
    } finally {
      await fs.promises.rm(lock, { recursive: true, force: true });
    }
  }
}

function encode(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("ffmpeg", args, { timeout: 60_000, killSignal: "SIGKILL", windowsHide: true }, (error, _stdout, stderr) =>
      error ? reject(new Error(`ffmpeg failed: ${String(stderr).trim().slice(0, 300) || error.message}`)) : resolve(),
    );
  });
}
