// GET /api/generations/events: the live gallery's Server-Sent Events stream,
// one per tab. It carries each change of what this viewer may see
// (getViewer(): their own generations) with what the card shows, so the tab
// renders it without a read (lib/generations/visibility.ts decides).
// APP_PASSWORD is enforced by proxy.ts, as for every other route.
import { env } from "@/lib/env";
import { AppError, errorResponse } from "@/lib/errors";
import { eventHub, openEventStream, SSE_HEADERS } from "@/lib/events";
import { eventSeenBy } from "@/lib/generations/visibility";
import { isDraining } from "@/lib/lifecycle/drain";
import { visitorKey } from "@/lib/rate-limit";
import { galleryScope, withViewer } from "@/lib/viewer/with-viewer";

export const dynamic = "force-dynamic";
// The stream ends itself (EVENTS_STREAM_SECONDS, at most 280) before this.
export const maxDuration = 300;

export const GET = withViewer(async (request, _context, viewer) => {
  if (isDraining()) {
    return errorResponse(new AppError("shutting_down", "This server is stopping; reconnect.", undefined, { "Retry-After": "1" }));
  }
  const stream = openEventStream({
    hub: await eventHub(),
    view: eventSeenBy(galleryScope(viewer)),
    // EventSource sends the header on its own reconnects; the query parameter
    // carries it across the fresh EventSource a tab opens after a refusal.
    lastEventId: request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId"),
    signal: request.signal,
    holder: { ownerId: viewer.id, address: visitorKey(request.headers) },
    lifetimeMs: env.EVENTS_STREAM_SECONDS * 1000,
  });
  if (!stream) {
    // This browser or its network holds its share of streams, or the instance is full: the tab polls and tries again later.
    return errorResponse(new AppError("rate_limited", "Too many live connections; this tab polls instead.", undefined, { "Retry-After": "30" }));
  }
  return new Response(stream, { headers: SSE_HEADERS });
});
