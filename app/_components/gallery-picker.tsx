"use client";
// "From my gallery" in a media field: the viewer's own Ready videos (kept
// here), offered as a reference video for a video field, or as their first or
// last frame for an image field. The server takes it from the stored copy and
// checks it against this field like an upload. Without FFmpeg on the server
// the browser takes the frame from the stored copy, and the field uploads it.
import { useRef, useState, useTransition } from "react";
import { continueFromResultAction } from "@/app/actions";
import { FrameGrabError, grabFrame } from "./browser-frame";
import { useFramesUnavailable } from "./frame-support";
import type { SavedUpload } from "./upload-session";

type Source = { id: string; prompt: string; durationSeconds: number | null; stillUrl: string | null; videoUrl: string };

const button =
  "rounded-md px-2 py-1 text-xs font-medium text-zinc-700 ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60 dark:text-zinc-200 dark:ring-zinc-700 dark:hover:bg-zinc-800";

export function GalleryPicker({
  modelId,
  fieldName,
  fieldLabel,
  video,
  onPicked,
  onFrame,
}: {
  modelId: string;
  fieldName: string;
  fieldLabel: string;
  video: boolean;
  onPicked: (picked: SavedUpload) => void;
  /** A frame taken in this browser (the server has no FFmpeg), for the field to upload. */
  onFrame: (file: File) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [sources, setSources] = useState<Source[] | null>(null);
  const [message, setMessage] = useState("");
  const [busy, startTransition] = useTransition();
  const titleId = `${modelId}-${fieldName}-gallery-title`.replace(/[^a-z0-9-]/gi, "-");
  const reasonId = `${titleId}-frames`;
  const framesUnavailable = useFramesUnavailable();

  const open = async () => {
    setMessage("");
    dialog.current?.showModal();
    try {
      const answer = await fetch("/api/uploads/gallery");
      if (!answer.ok) throw new Error(String(answer.status));
      setSources(((await answer.json()) as { items: Source[] }).items);
    } catch {
      setSources([]);
      setMessage("Your gallery could not be loaded. Try again.");
    }
  };
  const pick = (source: Source, take: "first-frame" | "last-frame" | "video") =>
    startTransition(async () => {
      setMessage(take === "video" ? "Taking the video…" : "Taking the frame…");
      const name = (which: string) => `${which} frame of “${source.prompt.slice(0, 30)}”.png`;
      if (framesUnavailable && take !== "video") {
        const which = take === "first-frame" ? "first" : "last";
        try {
          onFrame(await grabFrame({ src: source.videoUrl, which, name: name(which) }));
          dialog.current?.close();
        } catch (error) {
          setMessage(error instanceof FrameGrabError ? error.message : "The frame could not be taken in this browser.");
        }
        return;
      }
      const answer = await continueFromResultAction(source.id, take, { model: modelId, field: fieldName });
      if (answer.status === "success" && answer.upload) {
        onPicked({ name: take === "video" ? `${source.prompt.slice(0, 40)}.mp4` : name(take === "first-frame" ? "first" : "last"), video: take === "video", upload: answer.upload });
        dialog.current?.close();
      } else setMessage(answer.message);
    });

  return (
    <>
      <button type="button" className="rounded-md bg-zinc-100 px-3 py-1.5 font-medium ring-1 ring-zinc-300 hover:bg-zinc-200 focus-visible:outline-2 focus-visible:outline-brand-600 dark:bg-zinc-800 dark:ring-zinc-700" onClick={() => void open()}>
        From my gallery<span className="sr-only">: {fieldLabel}</span>
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        className="m-auto max-h-[90dvh] w-full max-w-2xl overflow-y-auto rounded-2xl bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-black/60 dark:bg-zinc-900 dark:text-zinc-100"
      >
        <div className="space-y-3 p-4 sm:p-6">
          <div className="flex items-center justify-between gap-2">
            <h2 id={titleId} className="text-base font-semibold">
              {fieldLabel} from my gallery
            </h2>
            <button type="button" className={button} onClick={() => dialog.current?.close()}>
              Close
            </button>
          </div>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {video ? "Your finished videos, kept here. Pick one as a reference video." : "Your finished videos, kept here. Take the first or the last frame of one."}
          </p>
          {!video && framesUnavailable ? (
            <p id={reasonId} className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="frames-unavailable">
              {framesUnavailable}
            </p>
          ) : null}
          {sources === null ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>
          ) : sources.length === 0 && !message ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">No finished videos yet: the ones you make appear here once they are kept.</p>
          ) : (
            <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3" aria-label="Your videos">
              {sources.map((source) => (
                <li key={source.id} className="flex flex-col gap-1.5 rounded-lg p-2 ring-1 ring-zinc-200 dark:ring-zinc-800" data-testid="gallery-source">
                  {source.stillUrl ? (
                    // eslint-disable-next-line @next/next/no-img-element -- an owner-scoped still served by the app
                    <img src={source.stillUrl} alt="" className="aspect-video w-full rounded bg-zinc-100 object-cover dark:bg-zinc-800" />
                  ) : (
                    <div className="aspect-video w-full rounded bg-zinc-200 dark:bg-zinc-800" />
                  )}
                  <p className="line-clamp-2 text-xs break-words">
                    {source.prompt}
                    {source.durationSeconds !== null ? <span className="text-zinc-500 dark:text-zinc-400"> · {source.durationSeconds} s</span> : null}
                  </p>
                  <div className="mt-auto flex flex-wrap gap-1">
                    {video ? (
                      <button type="button" className={button} disabled={busy} onClick={() => pick(source, "video")}>
                        Use this video<span className="sr-only"> “{source.prompt.slice(0, 60)}”</span>
                      </button>
                    ) : (
                      <>
                        {(["first-frame", "last-frame"] as const).map((take) => (
                          <button
                            key={take}
                            type="button"
                            className={button}
                            disabled={busy}
                            aria-describedby={framesUnavailable ? reasonId : undefined}
                            onClick={() => pick(source, take)}
                          >
                            {take === "first-frame" ? "First frame" : "Last frame"}
                            <span className="sr-only"> of “{source.prompt.slice(0, 60)}”</span>
                          </button>
                        ))}
                      </>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )}
          <p role="status" className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="gallery-picker-status">
            {message}
          </p>
        </div>
      </dialog>
    </>
  );
}
