// Whether this server can take a frame from a video (FFmpeg on PATH), for the
// pages that offer "Use first/last frame", and the words said when it cannot:
// the browser then takes the frame itself from the stored copy and uploads it
// (app/_components/browser-frame.ts). Uploads need no FFmpeg; stills do.
import "server-only";
import { AppError } from "@/lib/errors";
import { toolchainVersion } from "./toolchain";

/** Shown beside the frame actions when the browser takes the frame. */
export const FRAMES_UNAVAILABLE_REASON = "Frames are taken in your browser: the server has no FFmpeg (npm run doctor)";

/** The answer to a request that needs a frame on a server without FFmpeg. */
export const toolchainMissing = () =>
  new AppError("media_toolchain_missing", "Taking a frame from a video needs FFmpeg on the server, and this server has none: run `npm run doctor` for how to install it.");

/** How long an answer is kept: installing FFmpeg shows within a minute, without a restart. */
const CHECK_TTL_MS = 60_000;
let known: { at: number; can: boolean } | null = null;
let checking: Promise<boolean> | null = null;

/**
 * True when frames can be taken here: `ffmpeg -version` runs in the tool host
 * (a fork of the app would block its thread for as long as its memory takes
 * to copy), at most once at a time, outside the media pool (a page never
 * waits behind uploads for it). Once known, the answer is served at once and
 * checked again in the background after a minute. A check that could not
 * finish (timed out) is not kept and counts as yes: the request itself will
 * say what is wrong.
 */
export function canExtractFrames(): Promise<boolean> {
  if (!checking && (!known || Date.now() - known.at >= CHECK_TTL_MS)) {
    checking = toolchainVersion()
      .then(
        (version) => (known = { at: Date.now(), can: version !== null }).can,
        () => known?.can ?? true,
      )
      .finally(() => (checking = null));
  }
  return known ? Promise.resolve(known.can) : checking!;
}

/** Why the server does not take frames here (the browser does), or null when it does. */
export async function framesUnavailableReason(): Promise<string | null> {
  return (await canExtractFrames()) ? null : FRAMES_UNAVAILABLE_REASON;
}
