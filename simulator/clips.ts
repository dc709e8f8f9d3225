// Result clips of real size: what a real gateway returns for a 5 s task, at
// the resolution of the model (480p at 1.5 Mbit/s, 720p at 4 Mbit/s, H.264,
// +faststart), the aspect ratio the task asked for, and a look picked by its
// prompt (clip-looks.ts). Each is made with the system's FFmpeg when a task
// first needs it, at most two at a time, into a cache folder outside the
// repository shared by every simulator process on the machine; without FFmpeg,
// results are the small committed samples in media/ (and one line says so).
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LOOKS, lookFor, lookSource, type Look } from "./clip-looks";

export const SAMPLES_DIR = path.join(import.meta.dirname, "media");
export const SAMPLES = ["sample-1.mp4", "sample-2.mp4", "sample-3.mp4"];

export type ClipMode = "real-size" | "samples";
type Recipe = { name: string; width: number; height: number; kbps: number; look: Look };

const DURATION_SECONDS = 5;
const FPS = 24;
/** Encodes running at once in one simulator: a burst of new looks queues rather than taking every core. */
const MAX_ENCODES = 2;
const ASPECTS = { "16:9": "16x9", "9:16": "9x16", "1:1": "1x1" } as const;
const RESOLUTIONS = { "480p": { short: 480, long: 854, kbps: 1500 }, "720p": { short: 720, long: 1280, kbps: 4000 } } as const;

/** Every clip the simulator can serve: each look at each resolution and aspect ratio (a bounded cache). */
export const RECIPES: Recipe[] = LOOKS.flatMap((look) =>
  Object.entries(RESOLUTIONS).flatMap(([resolution, { short, long, kbps }]) =>
    Object.values(ASPECTS).map((aspect) => ({
      name: `clip-${resolution}-${aspect}-${look.name}.mp4`,
      width: aspect === "16x9" ? long : short,
      height: aspect === "9x16" ? long : short,
      kbps,
      look,
    })),
  ),
);

function ffmpegArgs(recipe: Recipe, out: string): string[] {
  const source = lookSource(recipe.look, { width: recipe.width, height: recipe.height, fps: FPS, seconds: DURATION_SECONDS });
  const rate = `${recipe.kbps}k`;
  return ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-t", String(DURATION_SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-threads", "1",
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

/**
 * The clip a task's result is: by the model's resolution (a `-480p` id, else
 * 720p), `input.aspect_ratio`, and the look its prompt hashes to among the first `looks`.
 */
export function clipNameFor({ model, input }: { model: string; input: Record<string, unknown> }, looks = LOOKS.length): string {
  const resolution = model.endsWith("-480p") ? "480p" : "720p";
  const asked = input.aspect_ratio;
  const aspect = typeof asked === "string" && asked in ASPECTS ? ASPECTS[asked as keyof typeof ASPECTS] : ASPECTS["16:9"];
  return `clip-${resolution}-${aspect}-${lookFor(input.prompt, looks).name}.mp4`;
}

export function createClipLibrary({ mode, cacheDir, looks = LOOKS.length }: { mode: ClipMode; cacheDir: string; looks?: number }) {
  const dir = cacheDir || defaultClipCacheDir();
  const made = new Map<string, Promise<string>>();
  const encodes = createLimiter(MAX_ENCODES);
  let ffmpeg: boolean | undefined;
  let toldMissing = false;
  // Looked for in the background from the start (main.ts waits for it before saying it listens):
  // a synchronous look on the first submit would hold up that task and everything else.
  const looked =
    mode === "samples"
      ? Promise.resolve()
      : new Promise<void>((resolve) =>
          execFile("ffmpeg", ["-version"], { timeout: 5_000, windowsHide: true }, (error) => {
            ffmpeg ??= !error;
            resolve();
          }),
        );

  function hasFfmpeg(): boolean {
    if (ffmpeg === undefined) {
      try {
        execFileSync("ffmpeg", ["-version"], { stdio: "ignore", timeout: 5_000, windowsHide: true });
        ffmpeg = true;
      } catch {
        ffmpeg = false;
      }
    }
    if (!ffmpeg && !toldMissing) {
      toldMissing = true;
      console.log("[simulator] ffmpeg not found on PATH: results are the small sample clips in simulator/media (install FFmpeg for real-size clips)");
    }
    return ffmpeg;
  }

  /** One encode per clip and process; a failed one is forgotten, so the next request tries again. */
  function make(recipe: Recipe): Promise<string> {
    const cached = path.join(dir, recipe.name);
    if (fs.existsSync(cached)) return Promise.resolve(cached);
    let file = made.get(recipe.name);
    if (!file) {
      file = encodes.run(() => makeOnce(recipe, dir));
      file.catch(() => made.delete(recipe.name));
      made.set(recipe.name, file);
    }
    return file;
  }

  return {
    dir,
    /** Resolves once FFmpeg has been looked for on PATH. */
    findFfmpeg: () => looked,
    /**
     * The result file name of a task, named when it is submitted (`sampleIndex`
     * picks a sample when clips are not made). Its clip starts being made in
     * the background, so it is usually ready by the time the task succeeds.
     */
    resultFor(task: { model: string; input: Record<string, unknown> }, sampleIndex: number): string {
      if (mode === "samples" || !hasFfmpeg()) return SAMPLES[sampleIndex % SAMPLES.length]!;
      const name = clipNameFor(task, looks);
      make(RECIPES.find((r) => r.name === name)!).catch(() => {});
      return name;
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
    /** Makes every clip of the looks in use ahead of any task (a no-op once the cache holds them): for test runs. */
    async prepare(): Promise<{ made: number; ms: number }> {
      const started = Date.now();
      if (mode === "samples" || !hasFfmpeg()) return { made: 0, ms: 0 };
      const recipes = RECIPES.filter((r) => LOOKS.indexOf(r.look) < looks);
      await Promise.all(recipes.map(make));
      return { made: recipes.length, ms: Date.now() - started };
    },
  };
}

/** Runs at most `limit` of the given jobs at once, the others in the order they came. */
function createLimiter(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(job: () => Promise<T>): Promise<T> {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else running++;
      try {
        return await job();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
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
    const child = execFile("ffmpeg", args, { timeout: 60_000, killSignal: "SIGKILL", windowsHide: true }, (error, _stdout, stderr) =>
      error ? reject(new Error(`ffmpeg failed: ${String(stderr).trim().slice(0, 300) || error.message}`)) : resolve(),
    );
    // Background work: the app, its dev server and the simulator's own timers go first.
    try {
      if (child.pid) os.setPriority(child.pid, 10);
    } catch {
      // Not allowed here: it runs at the normal priority.
    }
  });
}
