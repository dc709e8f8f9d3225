// Generation events: "generation X changed", published beside the writes and
// heard by every open gallery stream. The backend is chosen once, here, from
// the environment: PostgreSQL LISTEN/NOTIFY when several instances share a
// database, an in-process fan-out for SQLite's single instance. Callers never
// import a backend directly.
import "server-only";
import { env } from "@/lib/env";
import { EventHub } from "./hub";
import { createMemoryBus } from "./memory-bus";
import { createPostgresBus } from "./postgres-bus";
import type { GenerationEvent } from "./types";

export type { GenerationEvent } from "./types";
export { openEventStream, SSE_HEADERS } from "./event-stream";

function createHub(): EventHub {
  const bus = /^postgres(ql)?:/.test(env.DATABASE_URL)
    ? createPostgresBus({ url: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL })
    : createMemoryBus();
  return new EventHub(bus, {
    total: env.EVENTS_MAX_STREAMS,
    perOwner: env.EVENTS_MAX_STREAMS_PER_OWNER,
    perAddress: env.EVENTS_MAX_STREAMS_PER_ADDRESS,
  });
}

// Cached on globalThis in every environment, not only in development: route
// handlers and server actions may load this module more than once, and an
// in-process bus works only if all of them share one.
const globalForEvents = globalThis as unknown as { framehookEvents?: EventHub };

export function eventHub(): EventHub {
  return (globalForEvents.framehookEvents ??= createHub());
}

/** Tells every stream (on every instance) that a generation changed. Never throws: events are hints. */
export async function publishGenerationChange(change: Omit<GenerationEvent, "at">): Promise<void> {
  try {
    await eventHub().publish(change);
  } catch (error) {
    console.warn(`[framehook] could not publish the change of ${change.id}:`, error);
  }
}
