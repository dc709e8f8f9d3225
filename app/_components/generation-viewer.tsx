"use client";
// The viewer: one finished video at full size with what made it (prompt,
// model, duration, cost), Download and continuing from it (a frame or the
// video into the form); ←/→ move between the gallery's videos,
// Esc closes (a native modal <dialog>: focus is kept inside and returned).
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import type { Generation } from "@/lib/generations/generation";
import { playbackUrl, stillUrl, storedAsFile } from "@/lib/copies/media-copy";
import { findModel } from "@/lib/models/catalog";
import { ContinueActions, isContinuable } from "./continue-actions";
import { describeCharge } from "./generation-charge";
import { aspectOf } from "./video-tile";

const button =
  "rounded-lg px-3 py-1.5 text-sm font-medium ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-40 dark:ring-zinc-700 dark:hover:bg-zinc-800";

export function GenerationViewer({
  videos,
  index,
  onNavigate,
  onClose,
}: {
  /** The gallery's finished videos, in gallery order. */
  videos: readonly Generation[];
  index: number;
  onNavigate: (index: number) => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const generation = videos[index];
  const [message, setMessage] = useState("");

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  // On the document, not the dialog: wherever focus is inside the modal (the
  // player, a button), ←/→ move between videos.
  const count = videos.length;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "ArrowLeft" && index > 0) onNavigate(index - 1);
      else if (event.key === "ArrowRight" && index < count - 1) onNavigate(index + 1);
      else return;
      // The player's own arrow-key seeking gives way to moving between videos.
      event.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [index, count, onNavigate]);

  if (!generation) return null;
  // The stored copy once it exists, the gateway's link until then.
  const url = playbackUrl(generation)!;
  const stored = url !== generation.resultUrls[0];
  const model = findModel(generation.model);
  const duration = generation.input.duration;
  const hasPrevious = index > 0;
  const hasNext = index < videos.length - 1;

  return (
    <dialog
      ref={dialog}
      aria-labelledby="viewer-prompt"
      onClose={onClose}
      className="m-auto max-h-[100dvh] w-full max-w-5xl overflow-y-auto bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-black/80 sm:rounded-2xl dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="bg-black">
        {stored && storedAsFile(generation) ? (
          <p className="flex aspect-video items-center justify-center text-sm text-zinc-300" data-testid="stored-as-file">
            Stored as a file; no preview
          </p>
        ) : (
          <video
            // Not keyed by id: the same element changes source, so focus stays in the viewer.
            src={url}
            poster={stillUrl(generation) ?? undefined}
            controls
            autoPlay={!window.matchMedia("(prefers-reduced-motion: reduce)").matches}
            playsInline
            preload="auto"
            aria-label={`Video: ${generation.prompt.slice(0, 80)}`}
            className="mx-auto max-h-[70dvh] w-full object-contain"
            style={{ aspectRatio: aspectOf(generation.input) }}
          />
        )}
      </div>
      <div className="space-y-3 p-4 sm:p-6">
        <h2 id="viewer-prompt" className="text-base font-semibold break-words">
          {generation.prompt}
        </h2>
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-zinc-700 dark:text-zinc-300">
          <div className="flex gap-1.5">
            <dt className="text-zinc-500 dark:text-zinc-400">Model</dt>
            <dd>{model?.label ?? generation.model}</dd>
          </div>
          {duration !== undefined ? (
            <div className="flex gap-1.5">
              <dt className="text-zinc-500 dark:text-zinc-400">Duration</dt>
              <dd>{String(duration)} s</dd>
            </div>
          ) : null}
          <div className="flex gap-1.5">
            <dt className="text-zinc-500 dark:text-zinc-400">Cost</dt>
            <dd data-testid="viewer-cost">{describeCharge(generation) ?? "—"}</dd>
          </div>
        </dl>
        <div className="flex flex-wrap items-center gap-2">
          <button type="button" className={button} onClick={() => onNavigate(index - 1)} disabled={!hasPrevious}>
            ← Previous
          </button>
          <span className="text-sm text-zinc-600 tabular-nums dark:text-zinc-400">
            {index + 1} of {videos.length}
          </span>
          <button type="button" className={button} onClick={() => onNavigate(index + 1)} disabled={!hasNext}>
            Next →
          </button>
          <span className="flex-1" />
          <a href={url} download target={stored ? undefined : "_blank"} rel="noopener noreferrer" className={button}>
            Download
          </a>
          <Link href={`/generations/${generation.id}`} prefetch={false} className={button}>
            Details
          </Link>
          <button type="button" className={button} onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
        {isContinuable(generation, true) ? (
          <div className="flex flex-wrap items-center gap-2">
            {/* Carries on in the form, under the dialog: it closes once the server has agreed. */}
            <ContinueActions generation={generation} className={button} onAnnounce={setMessage} onDone={(ok) => ok && dialog.current?.close()} />
          </div>
        ) : null}
        <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
          {message}
        </p>
      </div>
    </dialog>
  );
}
