"use client";
// A finished video in the grid: its still (a native lazy image, so off-screen
// tiles load nothing), and a <video> only while it plays: a muted preview on
// hover or focus where there is a pointer that hovers. The pointer must rest
// on the tile a moment first, so one sweeping across the grid (or a grid
// scrolling under it) starts no download. Leaving the tile removes the player
// and releases its media at once, so a gallery of any length holds at most
// one or two.
// Without a still (no stored copy, or a video that could not be decoded) the
// tile is a placeholder: nothing is downloaded until it plays. A still the
// server was too busy to make when the tile asked is asked for again when the
// server says (Retry-After), so it appears without a reload. A result stored
// as a file (its bytes are not a video) says so, and never plays.
import { useEffect, useRef, useState } from "react";

/** How many times a still the server was busy making is asked for again before the tile settles for its placeholder. */
const STILL_RETRIES = 5;

/** How long the pointer rests on a tile before its preview starts. */
const HOVER_INTENT_MS = 250;

const canPreview = () => window.matchMedia("(hover: hover) and (prefers-reduced-motion: no-preference)").matches;

export function VideoTile({
  url,
  stillUrl,
  stored,
  file = false,
  prompt,
  aspect,
  eager = false,
  onOpen,
  onExpired,
}: {
  url: string;
  /** The stored copy's still image; null when there is none. */
  stillUrl: string | null;
  /** True when `url` is the app's own copy, false for the gateway's link. */
  stored: boolean;
  /** The stored copy is an opaque file, not a video: no preview, nothing plays. */
  file?: boolean;
  prompt: string;
  aspect: string;
  /** On the first screen: the still is fetched with the page, at high priority, instead of after layout. */
  eager?: boolean;
  onOpen: () => void;
  onExpired: () => void;
}) {
  const [playing, setPlaying] = useState(false);
  // Remembers which still failed to load, so a new one gets its own chance.
  const [failedStill, setFailedStill] = useState<string | null>(null);
  // A still the server was too busy to make yet (503) is asked for again when it says, under a new URL.
  const [retry, setRetry] = useState<{ of: string; attempt: number; waiting?: boolean } | null>(null);
  const retryTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const attempt = retry?.of === stillUrl ? retry.attempt : 0;
  const waiting = retry?.of === stillUrl && !!retry.waiting;
  const still = stillUrl !== null && stillUrl !== failedStill && !waiting ? (attempt ? `${stillUrl}?attempt=${attempt}` : stillUrl) : null;
  const onStillError = () => {
    const failed = stillUrl;
    if (failed === null) return;
    const again = () => setRetry({ of: failed, attempt: attempt + 1 });
    // An <img> cannot read why it failed: a HEAD says whether the still is on its way (and asking may make it).
    void fetch(failed, { method: "HEAD" })
      .then((answer) => {
        if (answer.ok && attempt < STILL_RETRIES) return again();
        if (answer.status !== 503 || attempt >= STILL_RETRIES) return setFailedStill(failed);
        const seconds = Number(answer.headers.get("retry-after"));
        setRetry({ of: failed, attempt, waiting: true });
        retryTimer.current = setTimeout(again, Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds : 5, 60) * 1000);
      })
      .catch(() => setFailedStill(failed));
  };
  const intent = useRef<ReturnType<typeof setTimeout>>(undefined);
  const preview = () => setPlaying(!file && canPreview());
  const previewSoon = () => {
    clearTimeout(intent.current);
    intent.current = setTimeout(preview, HOVER_INTENT_MS);
  };
  const stop = () => {
    clearTimeout(intent.current);
    setPlaying(false);
  };
  useEffect(
    () => () => {
      clearTimeout(intent.current);
      clearTimeout(retryTimer.current);
    },
    [],
  );
  return (
    <button
      type="button"
      onClick={onOpen}
      onMouseEnter={previewSoon}
      onMouseLeave={stop}
      onFocus={preview}
      onBlur={stop}
      data-still={still ? "image" : "placeholder"}
      className="group relative block max-h-[28rem] w-full overflow-hidden bg-black focus-visible:outline-3 focus-visible:-outline-offset-3 focus-visible:outline-brand-500"
      style={{ aspectRatio: aspect }}
    >
      <span className="sr-only">Play “{prompt.slice(0, 80)}” in the viewer</span>
      {still ? (
        // eslint-disable-next-line @next/next/no-img-element -- a private, already-sized still: the image optimizer would re-fetch it without the viewer's cookie.
        <img src={still} alt="" loading={eager ? "eager" : "lazy"} fetchPriority={eager ? "high" : "auto"} decoding="async" onError={onStillError} className="size-full object-contain" />
      ) : (
        <span aria-hidden className="flex size-full items-end justify-center bg-zinc-800 pb-3 text-xs text-zinc-300" data-testid="tile-placeholder">
          {file ? "Stored as a file; no preview" : waiting ? "Making its preview…" : "No preview image"}
        </span>
      )}
      {playing ? (
        <video
          src={url}
          autoPlay
          muted
          loop
          playsInline
          preload="auto"
          tabIndex={-1}
          aria-hidden
          onError={onExpired}
          ref={releaseOnRemoval}
          data-source={stored ? "stored" : "gateway"}
          className="absolute inset-0 size-full object-contain"
        />
      ) : null}
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

/**
 * A removed <video> keeps its decoder and buffered media until it is garbage
 * collected; emptying its source when React removes it frees them now.
 */
function releaseOnRemoval(video: HTMLVideoElement | null) {
  if (!video) return;
  return () => {
    video.removeAttribute("src");
    video.load();
  };
}

/** The CSS aspect ratio a generation asked for ("16:9" → "16 / 9"); 16:9 when it did not say. */
export function aspectOf(input: Record<string, unknown>): string {
  const match = typeof input.aspect_ratio === "string" ? /^(\d{1,2}):(\d{1,2})$/.exec(input.aspect_ratio) : null;
  return match ? `${match[1]} / ${match[2]}` : "16 / 9";
}
