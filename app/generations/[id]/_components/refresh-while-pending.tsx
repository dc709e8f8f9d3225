"use client";
// Keeps a server-rendered page live: an event about this generation re-renders
// it from the server at once; while it is in progress and the event stream is
// not open, it re-renders every few seconds (and on returning to the tab).
// The server render reads the database and, for tasks not heard from lately,
// asks the gateway, so the timeline grows without an API of its own. An
// outcome first seen in such a render revalidates the header's figures.
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { LiveIndicator } from "@/app/_components/live-indicator";
import { POLL_INTERVAL_MS, SAFETY_NET_POLL_MS } from "@/app/_components/client-data";
import { revalidateAfterOutcome } from "@/app/_components/revalidate-after-outcome";
import { useGenerationEvents } from "@/app/_components/use-generation-events";
import type { GenerationState } from "@/lib/generations/generation";

/** `callbacks`: false when the task was submitted without a callback, so no event will come. */
export function RefreshWhilePending({ id, state, pending, callbacks }: { id: string; state: GenerationState; pending: boolean; callbacks: boolean }) {
  const router = useRouter();
  // The state this page was loaded with is not news: the header read its figures after it.
  const loadedWith = useRef(state);
  useEffect(() => {
    if (state !== loadedWith.current) revalidateAfterOutcome({ id, state });
  }, [id, state]);
  const live = useGenerationEvents({
    onChange: (change) => {
      if (change.id === id) router.refresh();
    },
    onResync: ({ initial }) => {
      if (!initial || pending) router.refresh();
    },
  });
  const interval = live === "live" && callbacks ? SAFETY_NET_POLL_MS : POLL_INTERVAL_MS;
  useEffect(() => {
    if (!pending) return;
    const refresh = () => {
      if (document.visibilityState === "visible") router.refresh();
    };
    const timer = setInterval(refresh, interval);
    document.addEventListener("visibilitychange", refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", refresh);
    };
  }, [pending, interval, router]);
  return pending ? <LiveIndicator status={live} className="float-right" /> : null;
}
