"use client";
// What a card (and a detail page) offers: Remix (fill the form), Copy prompt,
// continuing from a stored result of the viewer's own (continue-actions.tsx),
// Retry (a failed or unsubmitted one) and Delete (from the gallery; kept for
// accounting); the last two only on the viewer's own generations.
import { useState, useTransition } from "react";
import { deleteGenerationAction, retryGenerationAction } from "@/app/actions";
import type { Generation } from "@/lib/generations/generation";
import { ContinueActions, isContinuable } from "./continue-actions";
import { requestRemix } from "./remix";
import { addSubmission, settleSubmission } from "./submissions";

const button =
  "rounded-md px-2 py-1 text-xs font-medium text-zinc-700 ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60 dark:text-zinc-200 dark:ring-zinc-700 dark:hover:bg-zinc-800";

export function CardActions({
  generation,
  own,
  folded = false,
  onAnnounce,
  onDeleted,
  onDone,
}: {
  generation: Generation;
  /** The viewer's own generation: only then Retry and Delete (a showcase shows others' too). */
  own: boolean;
  /** In a card: the ways to continue from a result sit behind one "Continue…" button. */
  folded?: boolean;
  /** A one-off message for the gallery's live region ("Prompt copied"). */
  onAnnounce: (message: string) => void;
  /** Called at once (the card leaves) and again with `restore` if the server refused. */
  onDeleted: (id: string, restore?: boolean) => void;
  /** After an action has run (and the server has answered), e.g. to go where it carries on. */
  onDone?: (action: "remix" | "retry" | "delete", ok: boolean) => void;
}) {
  const [busy, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);
  const retryable = own && (generation.state === "FAILURE" || generation.state === "SUBMIT_FAILED");
  // Continuing from a result needs the kit's own copy: the gateway's link expires.
  const continuable = isContinuable(generation, own);
  const about = <span className="sr-only"> “{generation.prompt.slice(0, 60)}”</span>;

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(generation.prompt);
      onAnnounce("Prompt copied.");
    } catch {
      onAnnounce("The browser did not allow copying. Select the prompt on the details page instead.");
    }
  };
  const retry = () =>
    startTransition(async () => {
      const key = `retry-${generation.id}`;
      addSubmission(key, { model: generation.model, prompt: generation.prompt });
      const answer = await retryGenerationAction(generation.id);
      settleSubmission(key, answer.generation);
      onAnnounce(answer.message);
      onDone?.("retry", answer.status === "success");
    });
  const remove = () =>
    startTransition(async () => {
      setConfirming(false);
      onDeleted(generation.id);
      const answer = await deleteGenerationAction(generation.id);
      if (answer.status === "error") onDeleted(generation.id, true);
      onAnnounce(answer.message);
      onDone?.("delete", answer.status === "success");
    });

  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <button
        type="button"
        className={button}
        onClick={() => {
          requestRemix(generation);
          onDone?.("remix", true);
        }}
      >
        Remix{about}
      </button>
      <button type="button" className={button} onClick={() => void copy()}>
        Copy prompt{about}
      </button>
      {continuable ? <ContinueActions generation={generation} className={button} folded={folded} onAnnounce={onAnnounce} onDone={(ok) => onDone?.("remix", ok)} /> : null}
      {retryable ? (
        <button type="button" className={button} onClick={retry} disabled={busy}>
          {busy ? "Retrying…" : "Retry"}
          {about}
        </button>
      ) : null}
      {!own ? null : confirming ? (
        <span className="flex items-center gap-1.5" role="group" aria-label="Confirm delete">
          <button type="button" className={`${button} text-red-700 dark:text-red-400`} onClick={remove} autoFocus>
            Confirm delete{about}
          </button>
          <button type="button" className={button} onClick={() => setConfirming(false)}>
            Keep
          </button>
        </span>
      ) : (
        <button type="button" className={button} onClick={() => setConfirming(true)} disabled={busy}>
          Delete{about}
        </button>
      )}
    </div>
  );
}
