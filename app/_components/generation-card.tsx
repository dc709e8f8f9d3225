"use client";
// One generation in the gallery: what it is, where it stands, and its video.
import Link from "next/link";
import { useState } from "react";
import type { Generation } from "@/lib/generations/generation";
import { formatCredits } from "./credits-badge";
import { StateBadge } from "./state-badge";
import { useNow } from "./use-now";

export function GenerationCard({ generation }: { generation: Generation }) {
  const { state } = generation;
  return (
    <article
      aria-label={`Generation: ${generation.prompt}`}
      data-state={state}
      className="flex flex-col overflow-hidden rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
    >
      <Preview generation={generation} />
      <div className="flex flex-1 flex-col gap-2 p-4">
        <div className="flex items-center justify-between gap-2">
          <StateBadge state={state} overdue={generation.overdue} />
          {state === "PENDING" || state === "SUBMITTING" ? <Elapsed since={generation.createdAt} /> : null}
        </div>
        <p className="line-clamp-2 text-sm" title={generation.prompt}>
          {generation.prompt}
        </p>
        <p className="truncate text-xs text-zinc-500 dark:text-zinc-400">
          <code>{generation.model}</code>
        </p>
        <Outcome generation={generation} />
        <Link
          href={`/generations/${generation.id}`}
          className="mt-auto text-sm font-medium text-brand-600 hover:underline dark:text-brand-400"
        >
          Details<span className="sr-only"> of “{generation.prompt.slice(0, 60)}”</span>
        </Link>
      </div>
    </article>
  );
}

function Preview({ generation }: { generation: Generation }) {
  const [expired, setExpired] = useState(false);
  const url = generation.resultUrls[0];
  const frame = "flex aspect-video w-full items-center justify-center bg-zinc-100 text-sm text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400";
  if (generation.state === "SUCCESS" && url && !expired) {
    return (
      <video
        src={url}
        controls
        preload="metadata"
        playsInline
        className="aspect-video w-full bg-black"
        onError={() => setExpired(true)}
        aria-label={`Video for “${generation.prompt.slice(0, 80)}”`}
      />
    );
  }
  if (generation.state === "SUCCESS") return <div className={frame}>{expired ? "Result link expired" : "No result URL"}</div>;
  if (generation.state === "PENDING" || generation.state === "SUBMITTING") {
    return (
      <div className={frame}>
        <span className="size-6 animate-spin rounded-full border-2 border-zinc-300 border-t-brand-600 motion-reduce:animate-none" aria-hidden />
      </div>
    );
  }
  return <div className={frame}>No video</div>;
}

function Outcome({ generation }: { generation: Generation }) {
  if (generation.state === "SUCCESS") {
    return (
      <div className="flex items-center justify-between text-sm">
        <span data-testid="credits-consumed">
          {generation.creditsConsumed === null ? "Credits not reported" : `${formatCredits(generation.creditsConsumed)} credits`}
        </span>
        {generation.resultUrls[0] ? (
          <a href={generation.resultUrls[0]} download className="font-medium text-brand-600 hover:underline dark:text-brand-400">
            Download
          </a>
        ) : null}
      </div>
    );
  }
  if (generation.state === "FAILURE" || generation.state === "SUBMIT_FAILED") {
    return (
      <p className="text-sm text-red-700 dark:text-red-400">
        {generation.error?.message ?? "Generation failed."} <span className="font-medium">Not charged.</span>
      </p>
    );
  }
  return null;
}

function Elapsed({ since }: { since: string }) {
  const now = useNow();
  if (now === null) return null;
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  const label = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  return <span className="text-xs tabular-nums text-zinc-500 dark:text-zinc-400">queued {label}</span>;
}
