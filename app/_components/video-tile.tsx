"use client";
// A finished video in the grid: its own frame as the poster (metadata, then a
// seek just past a fade-in: byte ranges of the same file, never a second
// download), a muted preview on hover or focus where there is a pointer that
// hovers, and a click that opens the viewer.
import { useRef } from "react";

/** Seconds into the clip where the poster frame is taken: past a fade-in from black. */
export const POSTER_SECONDS = 0.5;

const canPreview = () => window.matchMedia("(hover: hover) and (prefers-reduced-motion: no-preference)").matches;

export function VideoTile({
  url,
  stored,
  prompt,
  aspect,
  onOpen,
  onExpired,
}: {
  url: string;
  /** True when `url` is the app's own copy, false for the gateway's link. */
  stored: boolean;
  prompt: string;
  aspect: string;
  onOpen: () => void;
  onExpired: () => void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const preview = () => {
    if (video.current && canPreview()) void video.current.play().catch(() => undefined);
  };
  const stop = () => {
    const v = video.current;
    if (!v || v.paused) return;
    v.pause();
    v.currentTime = POSTER_SECONDS;
  };
  return (
    <button
      type="button"
      onClick={onOpen}
      onMouseEnter={preview}
      onMouseLeave={stop}
      onFocus={preview}
      onBlur={stop}
      className="group relative block max-h-[28rem] w-full overflow-hidden bg-black focus-visible:outline-3 focus-visible:-outline-offset-3 focus-visible:outline-brand-500"
      style={{ aspectRatio: aspect }}
    >
      <span className="sr-only">Play “{prompt.slice(0, 80)}” in the viewer</span>
      <video
        ref={video}
        src={url}
        preload="metadata"
        muted
        loop
        playsInline
        tabIndex={-1}
        aria-hidden
        onError={onExpired}
        onLoadedMetadata={(event) => {
          const v = event.currentTarget;
          // As a `#t=0.5` media fragment would, but the src stays the plain URL others compare against.
          if (v.currentTime === 0 && v.duration > POSTER_SECONDS * 2) v.currentTime = POSTER_SECONDS;
        }}
        data-source={stored ? "stored" : "gateway"}
        className="size-full object-contain"
      />
      <span
        aria-hidden
        className="absolute inset-0 flex items-center justify-center bg-black/0 transition-colors group-hover:bg-black/10 motion-reduce:transition-none"
      >
        <span className="flex size-12 items-center justify-center rounded-full bg-black/60 text-white opacity-90 transition-opacity group-hover:opacity-0 group-focus-visible:opacity-0 motion-reduce:transition-none">
          <svg viewBox="0 0 24 24" className="ml-0.5 size-6" fill="currentColor">
            <path d="M8 5.5v13l11-6.5-11-6.5Z" />
          </svg>
        </span>
      </span>
    </button>
  );
}

/** The CSS aspect ratio a generation asked for ("16:9" → "16 / 9"); 16:9 when it did not say. */
export function aspectOf(input: Record<string, unknown>): string {
  const match = typeof input.aspect_ratio === "string" ? /^(\d{1,2}):(\d{1,2})$/.exec(input.aspect_ratio) : null;
  return match ? `${match[1]} / ${match[2]}` : "16 / 9";
}
