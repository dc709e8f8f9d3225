// What the media work needs, one line per feature: uploads are checked with
// npm packages (sharp, mediabunny) and always work; stills and "Use
// first/last frame" need FFmpeg on PATH. Without it the app works with less
// (placeholders; frames taken in the browser instead): a warning, never a failure.
import { ok, skip, warn, type CheckResult } from "./check";

export const MEDIA_CHECK_NAMES = ["Uploads", "Stills", "Use first/last frame"] as const;

const INSTALL_FFMPEG =
  "install FFmpeg: `sudo apt-get install ffmpeg` (Debian/Ubuntu), `brew install ffmpeg` (macOS), `winget install Gyan.FFmpeg` (Windows); see docs/media-toolchain.md";

export async function checkMediaToolchain({ storageEnabled, version }: { storageEnabled: boolean; version: () => Promise<string | null> }): Promise<CheckResult[]> {
  const [uploads, stills, frames] = MEDIA_CHECK_NAMES;
  if (!storageEnabled) return MEDIA_CHECK_NAMES.map((name) => skip(name, "MEDIA_STORAGE=none: no uploads, copies, stills or frames"));
  const found = await version().catch(() => null);
  const uploadLine = ok(uploads, "images and videos are checked with npm packages (sharp, mediabunny): no FFmpeg needed");
  if (found) {
    const ffmpeg = found.replace(/ Copyright.*$/, "");
    return [uploadLine, ok(stills, `${ffmpeg} makes a still of each stored video`), ok(frames, `${ffmpeg} takes frames from stored videos`)];
  }
  return [
    uploadLine,
    warn(stills, "ffmpeg is not on PATH: stored videos get no still, and the gallery shows placeholders", INSTALL_FFMPEG),
    warn(frames, "ffmpeg is not on PATH: browsers take frames themselves from the stored copy, and the server's frame request answers 503 media_toolchain_missing", INSTALL_FFMPEG),
  ];
}
