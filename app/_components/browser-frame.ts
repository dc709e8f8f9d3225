"use client";
// A frame taken in this browser from the kit's own stored copy of a result,
// for a server without FFmpeg: a <video> seeks to the first or the last frame,
// a canvas draws it at the video's own size, and the PNG it encodes goes
// through the normal upload path (checked by the server like any upload).
// Same-origin media only: a cross-origin copy (a bucket without CORS) cannot
// be read back from a canvas, and the person is told so.

const TIMEOUT_MS = 30_000;

export class FrameGrabError extends Error {}

export async function grabFrame({ src, which, name }: { src: string; which: "first" | "last"; name: string }): Promise<File> {
  const video = document.createElement("video");
  video.muted = true;
  video.playsInline = true;
  video.preload = "auto";
  // Sends the viewer's cookie to the app's own origin; a copy on another origin must allow CORS to be drawn.
  video.crossOrigin = "anonymous";
  try {
    await loaded(video, src);
    // The end of the stream shows the last frame; 0 the first, once its data is there.
    const at = which === "last" && Number.isFinite(video.duration) ? video.duration : 0;
    if (at > 0 || video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) await seeked(video, at);
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const context = canvas.getContext("2d");
    if (!context || !canvas.width || !canvas.height) throw new FrameGrabError("This browser could not draw the video.");
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((resolve, reject) => {
      try {
        canvas.toBlob(resolve, "image/png");
      } catch {
        reject(new FrameGrabError("This browser may not read frames from where the video is stored."));
      }
    });
    if (!blob) throw new FrameGrabError("This browser could not encode the frame.");
    return new File([blob], name, { type: "image/png" });
  } finally {
    video.removeAttribute("src");
    video.load();
  }
}

function loaded(video: HTMLVideoElement, src: string): Promise<void> {
  return whenEvent(video, "loadeddata", () => (video.src = src));
}

function seeked(video: HTMLVideoElement, at: number): Promise<void> {
  return whenEvent(video, "seeked", () => (video.currentTime = at));
}

/** Resolves on `event` after `start()`; rejects on the media's error or after TIMEOUT_MS. */
function whenEvent(video: HTMLVideoElement, event: "loadeddata" | "seeked", start: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: FrameGrabError) => {
      clearTimeout(timer);
      video.removeEventListener(event, ok);
      video.removeEventListener("error", failed);
      if (error) reject(error);
      else resolve();
    };
    const ok = () => done();
    const failed = () => done(new FrameGrabError("This browser could not play the stored video."));
    const timer = setTimeout(() => done(new FrameGrabError("The stored video took too long to load.")), TIMEOUT_MS);
    video.addEventListener(event, ok);
    video.addEventListener("error", failed);
    start();
  });
}
