"use client";
// One generation in the gallery: its video (or where it stands), its prompt,
// model and outcome, and what can be done with it.
import Link from "next/link";
import { memo } from "react";
import type { Generation } from "@/lib/generations/generation";
import { playbackUrl, stillUrl, storedAsFile } from "@/lib/copies/media-copy";
import { findModel } from "@/lib/models/catalog";
import { CardActions } from "./card-actions";
import { describeCharge, failureNote } from "./generation-charge";
import { GenerationProgress } from "./generation-progress";
import { isShareable, ShareControl } from "./share-control";
import { ResultVideo, useResultExpiry } from "./result-video";
import { StateBadge } from "./state-badge";
import { aspectOf, VideoTile } from "./video-tile";

const link = "rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400";

/**
 * `placeholder`: shown while the server action runs; it has no detail page yet.
 * Memoized: an event changes one card, and only that card renders again.
 */
export const GenerationCard = memo(function GenerationCard({
  generation,
  placeholder = false,
  firstScreen = false,
  typicalMs,
  onOpen,
  onAnnounce,
  onDeleted,
}: {
  generation: Generation;
  placeholder?: boolean;
  /** On the gallery's first screen: its still loads with the page, not lazily. */
  firstScreen?: boolean;
  /** Typical completion time of its model and duration (this app's history); null without history. */
  typicalMs: number | null;
  /** Opens the viewer on this generation (a stable function: the card is memoized). */
  onOpen: (id: string) => void;
  onAnnounce: (message: string) => void;
  onDeleted: (id: string, restore?: boolean) => void;
}) {
  const { state, prompt } = generation;
  // The stored copy once it exists, the gateway's link until then.
  const url = state === "SUCCESS" ? playbackUrl(generation) : undefined;
  const stored = url !== undefined && url !== generation.resultUrls[0];
  const { expired, onExpired } = useResultExpiry(url);
  const inProgress = state === "PENDING" || state === "SUBMITTING";
  const model = findModel(generation.model);
  const aspect = aspectOf(generation.input);
  const duration = generation.input.duration;
  return (
    <article
      aria-label={`Generation: ${prompt}`}
      data-state={state}
      className="flex h-full flex-col overflow-hidden rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
    >
      {url && !expired ? (
        <VideoTile url={url} stillUrl={stillUrl(generation)} stored={stored} file={stored && storedAsFile(generation)} prompt={prompt} aspect={aspect} eager={firstScreen} onOpen={() => onOpen(generation.id)} onExpired={onExpired} />
      ) : url ? (
        <ResultVideo url={url} label={`Video: ${prompt.slice(0, 80)}`} expired={expired} onExpired={onExpired} stored={stored} poster={stillUrl(generation)} />
      ) : (
        <NoVideo state={state} aspect={aspect} />
      )}
      <div className="flex flex-1 flex-col gap-2 p-4">
        <div className="flex items-center justify-between gap-2">
          <StateBadge state={state} overdue={generation.overdue} />
          <span className="truncate text-xs text-zinc-600 dark:text-zinc-400" title={generation.model}>
            {model?.label ?? generation.model}
            {duration !== undefined ? ` · ${String(duration)} s` : ""}
          </span>
        </div>
        <p className="line-clamp-2 text-sm break-words" title={prompt}>
          {prompt}
        </p>
        {inProgress ? <GenerationProgress generation={generation} typicalMs={typicalMs} /> : <Failure generation={generation} />}
        <Charge generation={generation} />
        <div className="mt-auto flex flex-wrap items-center justify-between gap-x-3 gap-y-2 pt-1 text-sm">
          {placeholder ? (
            <span className="text-zinc-600 dark:text-zinc-400">Sending to the gateway…</span>
          ) : (
            <>
              <span className="flex gap-3">
                {/* No prefetch: a gallery shows dozens of cards and re-renders them on every change. */}
                <Link href={`/generations/${generation.id}`} prefetch={false} className={link}>
                  Details<span className="sr-only"> of “{prompt.slice(0, 60)}”</span>
                </Link>
                {url && !expired ? (
                  <a href={url} download target={stored ? undefined : "_blank"} rel="noopener noreferrer" className={link}>
                    Download<span className="sr-only"> “{prompt.slice(0, 60)}”</span>
                  </a>
                ) : null}
              </span>
              <CardActions generation={generation} own={!generation.showcase} folded onAnnounce={onAnnounce} onDeleted={onDeleted} />
            </>
          )}
        </div>
        {!placeholder && isShareable(generation, !generation.showcase) ? <ShareControl generation={generation} onAnnounce={onAnnounce} /> : null}
      </div>
    </article>
  );
});

function NoVideo({ state, aspect }: { state: Generation["state"]; aspect: string }) {
  const inProgress = state === "PENDING" || state === "SUBMITTING";
  return (
    <div
      className="flex max-h-[28rem] w-full flex-col items-center justify-center gap-2 bg-zinc-100 text-sm text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400"
      style={{ aspectRatio: aspect }}
    >
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

function Failure({ generation }: { generation: Generation }) {
  if (generation.state !== "FAILURE" && generation.state !== "SUBMIT_FAILED") return null;
  const note = failureNote(generation);
  return (
    <p className="text-sm text-red-700 dark:text-red-400">
      {generation.error?.message || "Generation failed."}
      {note ? <span className="font-semibold"> {note}</span> : null}
    </p>
  );
}

/** The owner's credits: held while in progress (muted: nothing is spent yet), then what the video cost. */
function Charge({ generation }: { generation: Generation }) {
  const text = describeCharge(generation);
  if (!text) return null;
  const held = generation.charge?.status === "held";
  return (
    <p
      className={`text-sm tabular-nums ${held ? "text-zinc-600 dark:text-zinc-400" : "font-medium"}`}
      title={held ? "Charged only on success, never more" : undefined}
      data-testid="generation-credits"
      data-status={generation.charge?.status}
    >
      {text}
    </p>
  );
}
