"use client";
// A browser's tabs share one identity (its cookies): when one tab signs in,
// keeps a guest's videos or signs out, the others reload so that their gallery
// and live stream belong to whoever is now signed in. Each page says who it was
// rendered for (a hash, never the id); a tab that hears of another identity,
// or of a claim, reloads. The tab itself, rendered again for another identity
// (signed out or in by a server action, no reload), drops every cached viewer
// figure (the header's credits and spend, the gallery) and reads them again:
// on a shared computer the next person never sees the last one's balance.
import { useEffect } from "react";
import { useSWRConfig, type ScopedMutator } from "swr";

const CHANNEL = "framehook-identity";
type Message = { identity: string } | { claimed: true };

/** One channel per tab: a BroadcastChannel never hears its own messages, so a tab never reloads itself. */
let tabChannel: BroadcastChannel | null = null;
function channel(): BroadcastChannel | null {
  if (typeof BroadcastChannel === "undefined") return null;
  return (tabChannel ??= new BroadcastChannel(CHANNEL));
}

/** The identity this tab's SWR caches were filled for. */
let cachedFor: string | null = null;

/** Empties every SWR cache of this tab (no stale figure stays on screen) and reads each again. */
export function dropViewerCaches(mutate: ScopedMutator) {
  return mutate(() => true, undefined, { revalidate: true });
}

/** Tells this browser's other tabs that a guest's videos moved to the account. */
export function announceClaim() {
  channel()?.postMessage({ claimed: true } satisfies Message);
}

export function IdentityWatcher({ identity }: { identity: string }) {
  const { mutate } = useSWRConfig();
  useEffect(() => {
    if (cachedFor !== null && cachedFor !== identity) void dropViewerCaches(mutate);
    cachedFor = identity;
  }, [identity, mutate]);
  useEffect(() => {
    const tab = channel();
    if (!tab) return;
    const onMessage = ({ data }: MessageEvent<Message>) => {
      if ("claimed" in data || data.identity !== identity) window.location.reload();
    };
    tab.addEventListener("message", onMessage);
    tab.postMessage({ identity } satisfies Message);
    return () => tab.removeEventListener("message", onMessage);
  }, [identity]);
  return null;
}
