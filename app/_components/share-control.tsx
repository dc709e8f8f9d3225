"use client";
// Sharing what is the viewer's own: a Ready video (its card and its detail
// page) or a comparison (its view). "Share" asks whether the public page shows
// the prompt, then makes a public link, copies it and shows it, with "Copy
// link" and "Stop sharing". Each share makes a new link; stopping makes the
// old one a 404 at once.
import { useId, useState, useTransition } from "react";
import { shareBatchAction, shareVideoAction, stopSharingAction, stopSharingBatchAction } from "@/app/actions";
import type { Batch } from "@/lib/batches/queries";
import type { Generation } from "@/lib/generations/generation";
import type { ShareLink } from "@/lib/sharing/share-link";

const button =
  "rounded-md px-2 py-1 text-xs font-medium text-zinc-700 ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60 dark:text-zinc-200 dark:ring-zinc-700 dark:hover:bg-zinc-800";
const primary =
  "rounded-md bg-brand-600 px-2 py-1 text-xs font-medium text-white hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60";

/** Whether the viewer can share it: their own, Ready, with the kit's copy of the video stored (the public link serves that copy). */
export const isShareable = (generation: Generation, own: boolean) =>
  own && generation.state === "SUCCESS" && generation.storedMedia.some((m) => m.position === 0 && m.status === "done" && m.kind === "video");

type ShareAnswer = { status: "success" | "error"; message: string; share?: ShareLink | null };

export function ShareControl({ generation, onAnnounce }: { generation: Generation; onAnnounce: (message: string) => void }) {
  return (
    <ShareLinkControl
      link={generation.share}
      about={`“${generation.prompt.slice(0, 60)}”`}
      share={(showPrompt) => shareVideoAction(generation.id, showPrompt)}
      stop={() => stopSharingAction(generation.id)}
      onAnnounce={onAnnounce}
    />
  );
}

/** Whether the viewer can share the comparison: at least one of its videos plays from the start (the rest join the public page as they land). */
export const isBatchShareable = (batch: Batch) => batch.generations.some((g) => isShareable(g, true));

export function BatchShareControl({ batch, onAnnounce }: { batch: Batch; onAnnounce: (message: string) => void }) {
  return (
    <ShareLinkControl
      link={batch.share}
      about={`comparison “${batch.prompt.slice(0, 50)}”`}
      share={(showPrompt) => shareBatchAction(batch.id, showPrompt)}
      stop={() => stopSharingBatchAction(batch.id)}
      onAnnounce={onAnnounce}
    />
  );
}

function ShareLinkControl({
  link,
  about: subject,
  share: makeLink,
  stop: stopLink,
  onAnnounce,
}: {
  link: ShareLink | null;
  /** What is shared, for screen readers (several controls may be on one page). */
  about: string;
  share: (showPrompt: boolean) => Promise<ShareAnswer>;
  stop: () => Promise<ShareAnswer>;
  onAnnounce: (message: string) => void;
}) {
  const [share, setShare] = useState<ShareLink | null>(link);
  const [choosing, setChoosing] = useState(false);
  const [showPrompt, setShowPrompt] = useState(true);
  const [busy, startTransition] = useTransition();
  const ids = useId();
  // A newer read (another tab shared or stopped) wins over what this control last did.
  const [read, setRead] = useState(link?.url);
  if (link?.url !== read) {
    setRead(link?.url);
    setShare(link);
  }
  const about = <span className="sr-only"> {subject}</span>;

  const copy = async (url: string, made: boolean) => {
    try {
      await navigator.clipboard.writeText(url);
      onAnnounce(made ? "Public link made and copied." : "Link copied.");
    } catch {
      onAnnounce(made ? "Public link made. Copy it from the box." : "The browser did not allow copying. Select the link in the box instead.");
    }
  };
  const create = () =>
    startTransition(async () => {
      const answer = await makeLink(showPrompt);
      if (answer.status === "error" || !answer.share) return onAnnounce(answer.message);
      setShare(answer.share);
      setChoosing(false);
      await copy(answer.share.url, true);
    });
  const stop = () =>
    startTransition(async () => {
      const answer = await stopLink();
      if (answer.status === "success") setShare(null);
      onAnnounce(answer.message);
    });

  if (share) {
    return (
      <div className="space-y-1.5" role="group" aria-labelledby={`${ids}-label`}>
        <label id={`${ids}-label`} htmlFor={`${ids}-url`} className="block text-xs font-medium text-zinc-700 dark:text-zinc-300">
          Public link{share.showPrompt ? "" : " (prompt hidden)"}
        </label>
        <div className="flex flex-wrap items-center gap-1.5">
          <input
            id={`${ids}-url`}
            readOnly
            value={share.url}
            onFocus={(event) => event.currentTarget.select()}
            className="min-w-0 flex-1 basis-40 rounded-md bg-zinc-50 px-2 py-1 font-mono text-xs text-zinc-800 ring-1 ring-zinc-300 focus-visible:outline-2 focus-visible:outline-brand-600 dark:bg-zinc-800 dark:text-zinc-200 dark:ring-zinc-700"
          />
          <button type="button" className={button} onClick={() => void copy(share.url, false)}>
            Copy link{about}
          </button>
          <button type="button" className={button} onClick={stop} disabled={busy}>
            {busy ? "Stopping…" : "Stop sharing"}
            {about}
          </button>
        </div>
      </div>
    );
  }
  if (choosing) {
    return (
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5" role="group" aria-label="Share publicly">
        <label className="flex items-center gap-1.5 text-xs text-zinc-700 dark:text-zinc-300">
          <input type="checkbox" checked={showPrompt} onChange={(event) => setShowPrompt(event.target.checked)} className="size-3.5 accent-brand-600" />
          Show the prompt
        </label>
        <span className="flex gap-1.5">
          <button type="button" className={primary} onClick={create} disabled={busy} autoFocus>
            {busy ? "Making the link…" : "Make public link"}
            {about}
          </button>
          <button type="button" className={button} onClick={() => setChoosing(false)} disabled={busy}>
            Cancel
          </button>
        </span>
      </div>
    );
  }
  return (
    // self-start: in a card's column it keeps its own width, as its neighbours do.
    <button type="button" className={`${button} self-start`} onClick={() => setChoosing(true)}>
      Share{about}
    </button>
  );
}
