// One browser tab's Server-Sent Events stream: catch-up from Last-Event-ID,
// then every change the tab may see, a heartbeat comment, and an end of its
// own before a serverless host's maxDuration (the browser then reconnects
// with its Last-Event-ID, which is why every event carries an `id:`). An
// instance that drains (SIGTERM) ends its streams the same way, so that their
// browsers reconnect to another instance at once.
import { onDrain } from "@/lib/lifecycle/drain";
import type { EventHub, StreamHolder } from "./hub";
import { isCreditsEvent, type BusEvent, type GenerationEvent, type LiveChange } from "./types";

export type StreamOptions = {
  hub: EventHub;
  /** What this viewer is sent of an event, or undefined for nothing (owner scoping plugs in here). */
  view: (event: GenerationEvent) => LiveChange | undefined;
  /** The Last-Event-ID the browser sent, if any. */
  lastEventId: string | null;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Whose stream it is, for the per-owner and per-address share of the slots, and whose credit changes it is sent. */
  holder?: StreamHolder;
  lifetimeMs: number;
  heartbeatMs?: number;
  retryMs?: number;
};

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  // no-transform also keeps Next's (and most proxies') gzip off this response.
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
  Connection: "keep-alive",
} as const;

const encoder = new TextEncoder();

/** One change as the stream sends it; the id is the event's position, for catch-up. */
function formatChange(at: number, change: LiveChange): string {
  return `id: ${at}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`;
}

const RESYNC = "event: resync\ndata: {}\n\n";

/** "Your balance changed": nothing more (the tab re-reads its balance through the scoped API). */
const formatCreditsChange = (at: number) => `id: ${at}\nevent: credits\ndata: {}\n\n`;

/** The stream, or undefined when its holder already has their share of streams or this instance its maximum. */
export function openEventStream({
  hub,
  view,
  lastEventId,
  signal,
  holder,
  lifetimeMs,
  heartbeatMs = 15_000,
  retryMs = 1_000,
}: StreamOptions): ReadableStream<Uint8Array> | undefined {
  const release = hub.claimStream(holder);
  if (!release) return undefined;
  let cleanup = () => {};

  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const close = () => {
        if (!open) return;
        open = false;
        cleanup();
        try {
          controller.close();
        } catch {
          // Already closed or errored by the runtime: nothing left to release.
        }
      };
      const sendSeen = (event: BusEvent) => {
        if (isCreditsEvent(event)) {
          if (holder && event.ownerId === holder.ownerId) send(formatCreditsChange(event.at));
          return;
        }
        const seen = view(event);
        if (seen) send(formatChange(event.at, seen));
      };
      const unlisten = hub.listen({
        onEvent: (event) => sendSeen(event),
        onGap: () => send(RESYNC),
      });
      const heartbeat = setInterval(() => send(": ping\n\n"), heartbeatMs);
      // Spread the reconnects of tabs opened together over the last tenth of the lifetime.
      const lifetime = setTimeout(close, lifetimeMs * (0.9 + Math.random() * 0.1));
      const onAbort = () => close();
      signal.addEventListener("abort", onAbort);
      const forgetDrain = onDrain(close, "connections");
      cleanup = () => {
        forgetDrain();
        unlisten();
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        signal.removeEventListener("abort", onAbort);
        release();
        cleanup = () => {};
      };
      if (signal.aborted) return close();

      // The first bytes go out at once: what was missed since Last-Event-ID
      // (start() runs synchronously, so nothing slips between replay and
      // listening), then "ready" with an id, so that even a tab that heard no
      // event reconnects with a point to catch up from.
      send(`retry: ${retryMs}\n\n`);
      if (lastEventId) {
        const replay = hub.replaySince(Number(lastEventId));
        if (replay === "resync") send(RESYNC);
        else for (const event of replay.events) sendSeen(event);
      }
      send(`id: ${hub.nextMark()}\nevent: ready\ndata: {}\n\n`);
    },
    cancel() {
      cleanup();
    },
  });
}
