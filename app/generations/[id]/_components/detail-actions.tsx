"use client";
// The detail page offers what its card does (Remix, Copy prompt, Retry,
// Delete, Share). Remix and a retry carry on in the gallery, where the form and the
// new card are; a delete returns there once the server has agreed. Without
// FFmpeg on the server the frame actions show disabled, with the reason.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { CardActions } from "@/app/_components/card-actions";
import { FrameSupport } from "@/app/_components/frame-support";
import { isShareable, ShareControl } from "@/app/_components/share-control";
import type { Generation } from "@/lib/generations/generation";

export function DetailActions({ generation, own, framesUnavailable }: { generation: Generation; own: boolean; framesUnavailable: string | null }) {
  const router = useRouter();
  const [message, setMessage] = useState("");
  return (
    <FrameSupport reason={framesUnavailable}>
      <div className="space-y-2">
        <CardActions
          generation={generation}
          own={own}
          onAnnounce={setMessage}
          onDeleted={() => {}}
          onDone={(_action, ok) => {
            if (ok) router.push("/");
          }}
        />
        {isShareable(generation, own) ? <ShareControl generation={generation} onAnnounce={setMessage} /> : null}
        <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
          {message}
        </p>
      </div>
    </FrameSupport>
  );
}
