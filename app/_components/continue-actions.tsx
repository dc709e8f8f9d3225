"use client";
// Continue from a Ready result of the viewer's own: its last or first frame
// as the first frame of a new video, or the video as a reference video. The
// server takes it from the kit's stored copy (never the gateway's expiring
// link) and checks it like an upload; the form switches to the model it goes
// to, with the upload in its field. A frame needs FFmpeg on the server:
// without it the two frame actions are shown disabled, with the reason.
import { useId, useState, useTransition } from "react";
import { continueFromResultAction } from "@/app/actions";
import type { Generation } from "@/lib/generations/generation";
import { useFramesUnavailable } from "./frame-support";
import { requestRemix } from "./remix";
import { saveUploads, uploadSessionKey } from "./upload-session";

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
  const run = (action: (typeof ACTIONS)[number]) =>
    startTransition(async () => {
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
  const framesUnavailable = useFramesUnavailable();
  const reasonId = useId();
  const actions = ACTIONS.map((action) =>
    framesUnavailable && action.take !== "video" ? (
      // aria-disabled rather than disabled: it stays focusable, so the reason it names is heard.
      <button key={action.take} type="button" className={`${className} cursor-not-allowed opacity-60`} aria-disabled="true" aria-describedby={reasonId}>
        {action.label}
        {about}
      </button>
    ) : (
      <button key={action.take} type="button" className={className} onClick={() => run(action)} disabled={busy}>
        {busy ? action.busy : action.label}
        {about}
      </button>
    ),
  );
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
