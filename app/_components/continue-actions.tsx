"use client";
// Continue from a Ready result of the viewer's own: its last or first frame
// as the first frame of a new video, or the video as a reference video. The
// server takes it from the kit's stored copy (never the gateway's expiring
// link) and checks it like an upload; the form switches to the model it goes
// to, with the upload in its field. A frame needs FFmpeg on the server:
// without it the browser takes the frame from the stored copy itself and the
// field uploads it like a picked file (browser-frame.ts), and a note says so.
import { useId, useState, useTransition } from "react";
import { continueFromResultAction } from "@/app/actions";
import type { Generation } from "@/lib/generations/generation";
import { FRAME_TARGET } from "@/lib/models/continue-targets";
import { grabFrame, FrameGrabError } from "./browser-frame";
import { useFramesUnavailable } from "./frame-support";
import { requestRemix } from "./remix";
import { offerFiles, saveUploads, uploadSessionKey } from "./upload-session";

const ACTIONS = [
  { take: "last-frame", label: "Use last frame as first frame", busy: "Taking the frame…", file: "last frame.png" },
  { take: "first-frame", label: "Use first frame", busy: "Taking the frame…", file: "first frame.png" },
  { take: "video", label: "Use as reference video", busy: "Taking the video…", file: "reference.mp4" },
] as const;

/** Whether a generation can be continued from: the viewer's own, Ready, with the kit's copy stored. */
export const isContinuable = (generation: Generation, own: boolean) =>
  own && generation.state === "SUCCESS" && generation.storedMedia.some((m) => m.status === "done");

/**
 * The three ways to continue. `folded`: behind one "Continue…" button that
 * shows them (a card has room for a row of buttons, not six); the viewer and
 * the detail page show them outright.
 */
export function ContinueActions({
  generation,
  className,
  folded = false,
  onAnnounce,
  onDone,
}: {
  generation: Generation;
  className: string;
  folded?: boolean;
  onAnnounce: (message: string) => void;
  onDone?: (ok: boolean) => void;
}) {
  const [busy, startTransition] = useTransition();
  const [open, setOpen] = useState(false);
  const listId = useId();
  const about = <span className="sr-only"> “{generation.prompt.slice(0, 60)}”</span>;
  const framesUnavailable = useFramesUnavailable();
  const storedVideo = generation.storedMedia.find((m) => m.status === "done" && m.kind === "video" && m.url);
  const run = (action: (typeof ACTIONS)[number]) =>
    startTransition(async () => {
      if (framesUnavailable && action.take !== "video") return takeInBrowser(action);
      const answer = await continueFromResultAction(generation.id, action.take);
      if (answer.status === "success" && answer.upload && answer.model && answer.field) {
        const video = action.take === "video";
        saveUploads(uploadSessionKey(answer.model, answer.field), [{ name: action.file, video, upload: answer.upload }], { announce: true });
        requestRemix({ model: answer.model, prompt: generation.prompt, input: {} });
      }
      onAnnounce(answer.message);
      if (answer.status === "success") setOpen(false);
      onDone?.(answer.status === "success");
    });
  /** No FFmpeg on the server: the frame is taken here, from the stored copy, and the form's field uploads it. */
  const takeInBrowser = async (action: (typeof ACTIONS)[number]) => {
    try {
      if (!storedVideo?.url) throw new FrameGrabError("This video is not kept here yet: try again once it is stored.");
      const file = await grabFrame({ src: storedVideo.url, which: action.take === "first-frame" ? "first" : "last", name: action.file });
      offerFiles(uploadSessionKey(FRAME_TARGET.model, FRAME_TARGET.field), [file]);
      requestRemix({ model: FRAME_TARGET.model, prompt: generation.prompt, input: {} });
      onAnnounce(`${action.take === "first-frame" ? "The first frame" : "The last frame"} was taken in your browser and is being uploaded as the first frame of a new video.`);
      setOpen(false);
      onDone?.(true);
    } catch (error) {
      onAnnounce(error instanceof FrameGrabError ? error.message : "The frame could not be taken in this browser.");
      onDone?.(false);
    }
  };
  const reasonId = useId();
  const actions = ACTIONS.map((action) => (
    <button
      key={action.take}
      type="button"
      className={className}
      onClick={() => run(action)}
      disabled={busy}
      aria-describedby={framesUnavailable && action.take !== "video" ? reasonId : undefined}
    >
      {busy ? action.busy : action.label}
      {about}
    </button>
  ));
  if (framesUnavailable) {
    actions.push(
      <span key="reason" id={reasonId} className="basis-full text-xs text-zinc-600 dark:text-zinc-400" data-testid="frames-unavailable">
        {framesUnavailable}
      </span>,
    );
  }
  if (!folded) return actions;
  return (
    <>
      <button type="button" className={className} aria-expanded={open} aria-controls={listId} onClick={() => setOpen((o) => !o)}>
        Continue…{about}
      </button>
      <span id={listId} role="group" aria-label="Continue from this video" hidden={!open} className="flex basis-full flex-wrap gap-1.5">
        {actions}
      </span>
    </>
  );
}
