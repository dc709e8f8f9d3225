"use client";
// The live gallery in the browser: one EventSource per tab, shared by every
// component that listens (gallery, detail page, indicator). It reports whether
// pushes flow ("live") so that SWR polling can drop to a slow safety net, and
// falls back to "polling" whenever the stream cannot get through. The same
// stream says when the viewer's credits changed (a purchase credited, a
// refund, an adjustment): the header's balance is re-read at once.
import { useEffect, useRef, useSyncExternalStore } from "react";
import { mutate } from "swr";
import type { LiveChange } from "@/lib/events/types";
import { CREDITS_KEY, EVENTS_URL } from "./client-data";
import { revalidateAfterOutcome } from "./revalidate-after-outcome";

export type LiveStatus = "connecting" | "live" | "polling";
export type EventHandlers = {
  onChange?: (change: LiveChange) => void;
  /** Changes may have been missed: `initial` for the first open of this tab's stream (the page was rendered before it). */
  onResync?: (info: { initial: boolean }) => void;
  /** The viewer's credit balance changed (besides their own submissions, which the cards carry). */
  onCredits?: () => void;
};

/** A stream that ends on schedule reconnects within a second or two: no reason to start polling meanwhile. */
const RECONNECT_GRACE_MS = 10_000;
/** After a refusal or a stream that never opened, wait before trying again (polling meanwhile). */
const REOPEN_BACKOFF_MS = [3_000, 10_000, 30_000, 60_000];
/** Leave the stream open briefly when the last listener goes, so navigating between pages keeps it. */
const LINGER_MS = 2_000;

class LiveConnection {
  private readonly handlers = new Set<EventHandlers>();
  private readonly watchers = new Set<() => void>();
  private source: EventSource | undefined;
  private lastEventId = "";
  private everOpened = false;
  private openedSinceError = false;
  private failures = 0;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private reopenTimer: ReturnType<typeof setTimeout> | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  status: LiveStatus = "connecting";

  watch = (watcher: () => void) => {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  };

  listen(handlers: EventHandlers): () => void {
    this.handlers.add(handlers);
    clearTimeout(this.lingerTimer);
    if (this.handlers.size === 1) document.addEventListener("visibilitychange", this.onVisibility);
    this.resume();
    return () => {
      this.handlers.delete(handlers);
      if (this.handlers.size > 0) return;
      document.removeEventListener("visibilitychange", this.onVisibility);
      this.lingerTimer = setTimeout(() => this.shutdown(), LINGER_MS);
    };
  }

  /**
   * A hidden tab holds no stream: over HTTP/1.1 a browser opens at most six
   * connections per host, shared by all its tabs, so open streams in
   * background tabs would starve the visible one. Shown again, it reconnects
   * with its Last-Event-ID and is sent what it missed.
   */
  private onVisibility = () => {
    if (document.visibilityState === "hidden") this.shutdown();
    else this.resume();
  };

  private resume() {
    if (document.visibilityState !== "hidden" && !this.source && !this.reopenTimer) this.open();
  }

  private setStatus(status: LiveStatus) {
    if (this.status === status) return;
    this.status = status;
    for (const watcher of this.watchers) watcher();
  }

  private open() {
    this.reopenTimer = undefined;
    const url = this.lastEventId ? `${EVENTS_URL}?lastEventId=${encodeURIComponent(this.lastEventId)}` : EVENTS_URL;
    const source = (this.source = new EventSource(url));
    source.addEventListener("ready", (event) => {
      const initial = !this.everOpened;
      this.everOpened = true;
      this.openedSinceError = true;
      this.failures = 0;
      this.remember(event as MessageEvent);
      clearTimeout(this.graceTimer);
      this.setStatus("live");
      if (initial) this.each((h) => h.onResync?.({ initial: true }));
    });
    source.addEventListener("change", (event) => {
      const message = event as MessageEvent<string>;
      this.remember(message);
      const change = JSON.parse(message.data) as LiveChange;
      if (!change.removed) revalidateAfterOutcome(change);
      this.each((h) => h.onChange?.(change));
    });
    source.addEventListener("credits", (event) => {
      this.remember(event as MessageEvent);
      void mutate(CREDITS_KEY);
      this.each((h) => h.onCredits?.());
    });
    source.addEventListener("resync", () => this.each((h) => h.onResync?.({ initial: false })));
    source.onerror = () => {
      if (this.openedSinceError && source.readyState === EventSource.CONNECTING) {
        // The stream ended (on schedule, or a blip): the browser reconnects with Last-Event-ID.
        this.openedSinceError = false;
        clearTimeout(this.graceTimer);
        this.graceTimer = setTimeout(() => this.setStatus("polling"), RECONNECT_GRACE_MS);
        return;
      }
      // Refused, blocked or failing again: poll, and try again later rather than every second.
      source.close();
      this.source = undefined;
      this.openedSinceError = false;
      clearTimeout(this.graceTimer);
      this.setStatus("polling");
      const wait = REOPEN_BACKOFF_MS[Math.min(this.failures++, REOPEN_BACKOFF_MS.length - 1)]!;
      this.reopenTimer = setTimeout(() => this.open(), wait);
    };
  }

  private remember(event: MessageEvent) {
    if (event.lastEventId) this.lastEventId = event.lastEventId;
  }

  private each(call: (handlers: EventHandlers) => void) {
    for (const handlers of [...this.handlers]) call(handlers);
  }

  private shutdown() {
    this.source?.close();
    this.source = undefined;
    clearTimeout(this.reopenTimer);
    clearTimeout(this.graceTimer);
    this.reopenTimer = undefined;
    this.setStatus("connecting");
  }
}

let connection: LiveConnection | undefined;
const shared = () => (connection ??= new LiveConnection());

/** Whether pushes flow; renders as "connecting" on the server. */
export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (watcher) => shared().watch(watcher),
    () => shared().status,
    () => "connecting",
  );
}

/** Calls the handlers for every change this viewer may see, and returns the live status. */
export function useGenerationEvents(handlers: EventHandlers): LiveStatus {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(
    () =>
      shared().listen({
        onChange: (change) => latest.current.onChange?.(change),
        onResync: (info) => latest.current.onResync?.(info),
        onCredits: () => latest.current.onCredits?.(),
      }),
    [],
  );
  return useLiveStatus();
}
