"use client";
// A browser's tabs share one identity (its cookies): when one tab signs in,
// keeps a guest's videos or signs out, the others reload so that their gallery
// and live stream belong to whoever is now signed in. Each page says who it was
// rendered for (a hash, never the id); a tab that hears of another identity,
// or of a claim (the claim lands on "/?kept=1"), reloads.
import { useEffect } from "react";

const CHANNEL = "framehook-identity";
const KEPT_PARAM = "kept";
type Message = { identity: string; claimed?: true };

export function IdentityWatcher({ identity }: { identity: string }) {
  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = ({ data }: MessageEvent<Message>) => {
      if (data.claimed || data.identity !== identity) window.location.reload();
    };
    const url = new URL(window.location.href);
    const claimed = url.searchParams.has(KEPT_PARAM);
    if (claimed) {
      url.searchParams.delete(KEPT_PARAM);
      window.history.replaceState(window.history.state, "", url);
    }
    // A channel never hears its own messages, so this tab does not reload itself.
    channel.postMessage({ identity, ...(claimed ? { claimed: true } : {}) } satisfies Message);
    return () => channel.close();
  }, [identity]);
  return null;
}
