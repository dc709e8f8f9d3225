"use client";
// A shared comparison's columns, one per model, for anyone holding the link:
// the video (its public file, poster from its still) or why there is none yet,
// the owner's pick marked, and "Play all from the start" playing every ready
// video together, as the owner's view does.
import { useState } from "react";
import { PlayAllButton } from "@/app/_components/play-all-button";
import { usePlayTogether } from "@/app/_components/use-play-together";
import type { SharedComparison, SharedComparisonVideo } from "@/lib/sharing/shared-comparison";

const COLUMNS: Record<number, string> = { 1: "sm:grid-cols-1", 2: "sm:grid-cols-2", 3: "sm:grid-cols-2 lg:grid-cols-3", 4: "sm:grid-cols-2 xl:grid-cols-4" };

const NOT_PLAYING: Record<Exclude<SharedComparisonVideo["status"], "ready">, string> = {
  pending: "Not ready yet",
  unavailable: "No video",
};

export function PublicComparison({ comparison }: { comparison: SharedComparison }) {
  const players = usePlayTogether();
  const [message, setMessage] = useState("");
  const ready = comparison.videos.filter((v) => v.status === "ready");

  const playAll = async () => {
    const playing = await players.playAll(ready.map((v) => String(v.position)));
    setMessage(`Playing ${playing} videos from the start.`);
  };

  return (
    <section aria-labelledby="comparison-title" className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 id="comparison-title" className="text-lg font-semibold">
            {`Comparison · ${comparison.videos.length} ${comparison.videos.length === 1 ? "model" : "models"}`}
          </h1>
          {comparison.prompt ? <p className="mt-1 text-sm break-words whitespace-pre-line text-zinc-700 dark:text-zinc-300">{comparison.prompt}</p> : null}
        </div>
        <PlayAllButton onPlay={() => void playAll()} disabled={ready.length < 2} />
      </div>
      <p role="status" aria-live="polite" className="text-sm text-emerald-700 dark:text-emerald-400">
        {message}
      </p>
      <ol className={`grid grid-cols-1 gap-4 ${COLUMNS[comparison.videos.length] ?? COLUMNS[4]}`}>
        {comparison.videos.map((video) => (
          <Column key={video.position} video={video} register={players.register(String(video.position))} />
        ))}
      </ol>
    </section>
  );
}

function Column({ video, register }: { video: SharedComparisonVideo; register: (element: HTMLVideoElement | null) => void }) {
  const label = video.model.label;
  return (
    <li
      aria-label={label}
      data-status={video.status}
      className={`flex flex-col gap-2 rounded-2xl bg-white p-3 shadow-sm ring-1 dark:bg-zinc-900 ${video.picked ? "ring-2 ring-brand-600" : "ring-zinc-200 dark:ring-zinc-800"}`}
    >
      <div className="flex items-center justify-between gap-2">
        <h2 className="truncate text-sm font-semibold">{label}</h2>
        {video.picked ? <span className="shrink-0 rounded-full bg-brand-600 px-2 py-0.5 text-xs font-medium text-white">Their pick</span> : null}
      </div>
      <div className="flex aspect-video items-center justify-center overflow-hidden rounded-lg bg-black">
        {video.paths ? (
          <video
            ref={register}
            src={video.paths.video}
            poster={video.video?.hasStill ? video.paths.still : undefined}
            controls
            muted
            playsInline
            preload="metadata"
            className="size-full object-contain"
            aria-label={`${label} result`}
          />
        ) : (
          <p className="p-3 text-center text-sm text-zinc-300">{NOT_PLAYING[video.status as keyof typeof NOT_PLAYING]}</p>
        )}
      </div>
    </li>
  );
}
