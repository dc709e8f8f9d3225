"use client";
// A generation's result: a player while its URL works, and a plain panel once
// it does not, never a broken player. The gateway's links expire (gateways keep
// results from 20 minutes to 14 days); the app's stored copy does not.
import { useState } from "react";

/** Remembers which URL failed, so a new URL (the stored copy arriving) gets its own chance. */
export function useResultExpiry(url: string | undefined) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  return { expired: url !== undefined && failedUrl === url, onExpired: () => setFailedUrl(url ?? null) };
}

export function ResultVideo({
  url,
  label,
  expired,
  onExpired,
  stored = false,
  file = false,
  poster = null,
  className = "",
}: {
  url: string;
  label: string;
  expired: boolean;
  onExpired: () => void;
  /** True when `url` is the app's own copy, false for the gateway's link. */
  stored?: boolean;
  /** The stored copy is an opaque file, not a video: a download, never a player. */
  file?: boolean;
  /** The stored copy's still: with a poster, Chromium stops reading after the metadata. */
  poster?: string | null;
  className?: string;
}) {
  if (file) {
    return (
      <div className={`flex aspect-video w-full flex-col items-center justify-center gap-1 bg-zinc-100 p-4 text-center dark:bg-zinc-800 ${className}`} data-testid="stored-as-file">
        <p className="text-sm font-semibold text-zinc-700 dark:text-zinc-200">Stored as a file; no preview</p>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          The result is not an MP4, QuickTime or WebM video.{" "}
          <a href={url} download className="font-medium text-brand-700 underline dark:text-brand-400">
            Download it
          </a>
        </p>
      </div>
    );
  }
  if (expired) {
    return (
      <div className={`flex aspect-video w-full flex-col items-center justify-center gap-1 bg-zinc-100 p-4 text-center dark:bg-zinc-800 ${className}`}>
        <p className="text-sm font-semibold text-zinc-700 dark:text-zinc-200">{stored ? "Video unavailable" : "Result expired"}</p>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          {stored ? "The stored copy could not be loaded." : "The gateway no longer serves this video: result links expire."}
        </p>
      </div>
    );
  }
  return (
    <video
      // Without a poster (no stored still), preloading metadata paints the first frame instead.
      src={url}
      poster={poster ?? undefined}
      controls
      preload="metadata"
      playsInline
      className={`aspect-video w-full bg-black ${className}`}
      onError={onExpired}
      aria-label={label}
      data-source={stored ? "stored" : "gateway"}
    />
  );
}
