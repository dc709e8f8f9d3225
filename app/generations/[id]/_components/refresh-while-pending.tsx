"use client";
// Keeps a server-rendered page live: while its generation is in progress,
// re-render it from the server every few seconds (and on returning to the tab).
// The server render reads the database and, for tasks not heard from lately,
// asks the gateway, so the timeline grows without an API of its own.
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { POLL_INTERVAL_MS } from "@/app/_components/use-generations";

export function RefreshWhilePending({ pending }: { pending: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!pending) return;
    const refresh = () => {
      if (document.visibilityState === "visible") router.refresh();
    };
    const timer = setInterval(refresh, POLL_INTERVAL_MS);
    document.addEventListener("visibilitychange", refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", refresh);
    };
  }, [pending, router]);
  return null;
}
