// GET /api/generations/events: the live gallery's Server-Sent Events stream,
// one per tab. It carries "generation X changed" (id, state, updatedAt) for
// what this viewer may see; the tab then refetches through the scoped JSON API.
// APP_PASSWORD is enforced by proxy.ts, as for every other route.
import { env } from "@/lib/env";
import { AppError, errorResponse } from "@/lib/errors";
import { eventHub, openEventStream, SSE_HEADERS, type GenerationEvent } from "@/lib/events";

export const dynamic = "force-dynamic";
// The stream ends itself (EVENTS_STREAM_SECONDS, at most 280) before this.
export const maxDuration = 300;

// Owners (#15): `const viewer = await getViewer()` and `(event) => event.ownerId === viewer.id`.
const everyone: (event: GenerationEvent) => boolean = () => true;

export async function GET(request: Request) {
  const stream = openEventStream({
    hub: eventHub(),
    filter: everyone,
    // EventSource sends the header on its own reconnects; the query parameter
    // carries it across the fresh EventSource a tab opens after a refusal.
    lastEventId: request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId"),
    signal: request.signal,
    lifetimeMs: env.EVENTS_STREAM_SECONDS * 1000,
  });
  if (!stream) {
    // The browser falls back to polling and tries again later.
    return errorResponse(new AppError("rate_limited", "Too many live connections; this tab polls instead.", undefined, { "Retry-After": "30" }));
  }
  return new Response(stream, { headers: SSE_HEADERS });
}
