// The media toolchain (FFmpeg on PATH) that makes each stored video's still.
// Without it copies are still stored and played; the gallery just shows
// placeholders instead of stills.
import { fail, ok, skip, type CheckResult } from "./check";

const NAME = "Media toolchain";

export async function checkMediaToolchain({ storageEnabled, version }: { storageEnabled: boolean; version: () => Promise<string | null> }): Promise<CheckResult> {
  if (!storageEnabled) return skip(NAME, "MEDIA_STORAGE=none: no copies, no stills");
  const found = await version().catch(() => null);
  if (found) return ok(NAME, `${found.replace(/ Copyright.*$/, "")} (stills of stored videos)`);
  return fail(
    NAME,
    "ffmpeg and ffprobe are not on PATH: stored videos get no still, and the gallery shows placeholders",
    "install FFmpeg: `sudo apt-get install ffmpeg` (Debian/Ubuntu), `brew install ffmpeg` (macOS), `winget install Gyan.FFmpeg` (Windows); see docs/media-toolchain.md",
  );
}
