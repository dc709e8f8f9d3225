"use client";
// One generation in the gallery: what it is, where it stands, and its video.
import Link from "next/link";
import type { Generation } from "@/lib/generations/generation";
import { playbackUrl } from "@/lib/media/media-copy";
import { findModel } from "@/lib/models/catalog";
import { Elapsed } from "./elapsed";
import { formatCredits } from "./format";
import { ResultVideo, useResultExpiry } from "./result-video";
import { StateBadge } from "./state-badge";

const link = "rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400";

/** `placeholder`: shown while the server action runs; it has no detail page yet. */
export function GenerationCard({ generation, placeholder = false }: { generation: Generation; placeholder?: boolean }) {
  const { state, prompt } = generation;
  // The stored copy once it exists, the gateway's link until then.
  const url = state === "SUCCESS" ? playbackUrl(generation) : undefined;
  const stored = url !== undefined && url !== generation.resultUrls[0];
  const { expired, onExpired } = useResultExpiry(url);
  const inProgress = state === "PENDING" || state === "SUBMITTING";
  const model = findModel(generation.model);
  return (
    <article
      aria-label={`Generation: ${prompt}`}
      data-state={state}
      className="flex h-full flex-col overflow-hidden rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
    >
      {url ? (
        <ResultVideo url={url} label={`Video: ${prompt.slice(0, 80)}`} expired={expired} onExpired={onExpired} stored={stored} />
      ) : (
        <NoVideo state={state} />
      )}
      <div className="flex flex-1 flex-col gap-2 p-4">
        <div className="flex items-center justify-between gap-2">
          <StateBadge state={state} overdue={generation.overdue} />
          {inProgress ? <Elapsed since={generation.createdAt} className="text-xs text-zinc-600 dark:text-zinc-400" /> : null}
        </div>
        <p className="line-clamp-2 text-sm break-words" title={prompt}>
          {prompt}
        </p>
        <p className="truncate text-xs text-zinc-600 dark:text-zinc-400" title={generation.model}>
          {model?.label ?? generation.model}
        </p>
        <Outcome generation={generation} />
        <div className="mt-auto flex items-center justify-between gap-3 pt-1 text-sm">
          {placeholder ? (
            <span className="text-zinc-600 dark:text-zinc-400">Sending to the gateway…</span>
          ) : (
            <Link href={`/generations/${generation.id}`} className={link}>
              Details<span className="sr-only"> of “{prompt.slice(0, 60)}”</span>
            </Link>
          )}
          {url && !expired ? (
            <a href={url} download target={stored ? undefined : "_blank"} rel="noopener noreferrer" className={link}>
              Download<span className="sr-only"> “{prompt.slice(0, 60)}”</span>
            </a>
          ) : null}
        </div>
      </div>
    </article>
  );
}

function NoVideo({ state }: { state: Generation["state"] }) {
  const inProgress = state === "PENDING" || state === "SUBMITTING";
  return (
    <div className="flex aspect-video w-full flex-col items-center justify-center gap-2 bg-zinc-100 text-sm text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400">
      {inProgress ? (
        <>
          <span className="size-6 animate-spin rounded-full border-2 border-zinc-300 border-t-brand-600 motion-reduce:animate-none dark:border-zinc-600 dark:border-t-brand-400" aria-hidden />
          <span aria-hidden>{state === "SUBMITTING" ? "Submitting…" : "Generating…"}</span>
        </>
      ) : (
        <>
          <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" className="size-7" aria-hidden>
            <path d="M3 6.5A1.5 1.5 0 0 1 4.5 5h10A1.5 1.5 0 0 1 16 6.5v11a1.5 1.5 0 0 1-1.5 1.5h-10A1.5 1.5 0 0 1 3 17.5v-11ZM16 10l5-3v10l-5-3M3 3l18 18" />
          </svg>
          <span>{state === "SUCCESS" ? "No result URL" : "No video"}</span>
        </>
      )}
    </div>
  );
}

function Outcome({ generation }: { generation: Generation }) {
  if (generation.state === "SUCCESS") {
    return (
      <p className="text-sm font-medium tabular-nums" data-testid="credits-consumed">
        {generation.creditsConsumed === null ? "Credits not reported" : `${formatCredits(generation.creditsConsumed)} credits`}
      </p>
    );
  }
  if (generation.state === "FAILURE" || generation.state === "SUBMIT_FAILED") {
    return (
      <p className="text-sm text-red-700 dark:text-red-400">
        {generation.error?.message || "Generation failed."} <span className="font-semibold">Not charged.</span>
      </p>
    );
  }
  return null;
}
