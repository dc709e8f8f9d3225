"use client";
// A generation's result: a player while its URL works, and a plain "expired"
// panel once it does not (gateways keep results from 20 minutes to 14 days),
// never a broken player.
import { useState } from "react";

export function useResultExpiry() {
  const [expired, setExpired] = useState(false);
  return { expired, onExpired: () => setExpired(true) };
}

export function ResultVideo({
  url,
  label,
  expired,
  onExpired,
  className = "",
}: {
  url: string;
  label: string;
  expired: boolean;
  onExpired: () => void;
  className?: string;
}) {
  if (expired) {
    return (
      <div className={`flex aspect-video w-full flex-col items-center justify-center gap-1 bg-zinc-100 p-4 text-center dark:bg-zinc-800 ${className}`}>
        <p className="text-sm font-semibold text-zinc-700 dark:text-zinc-200">Result expired</p>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">The gateway no longer serves this video: result links expire.</p>
      </div>
    );
  }
  return (
    <video
      // Gateways send no thumbnail: preloading metadata paints the first frame instead.
      src={url}
      controls
      preload="metadata"
      playsInline
      className={`aspect-video w-full bg-black ${className}`}
      onError={onExpired}
      aria-label={label}
    />
  );
}
