// Generation events: "generation X changed", published beside the writes and
// heard by every open gallery stream. The backend is chosen once, here, from
// the environment: PostgreSQL LISTEN/NOTIFY when several instances share a
// database, an in-process fan-out for SQLite's single instance. Callers never
// import a backend directly; the chosen one is loaded on first use, so an
// install on SQLite never loads `pg`.
import "server-only";
import { databaseEngine } from "@/lib/database/engine";
import { env } from "@/lib/env";
import { traced } from "@/lib/traces/tracing";
import { EventHub } from "./hub";
import type { EventBus, GenerationEvent } from "./types";

export type { BusEvent, GenerationEvent, LiveChange } from "./types";
export { openEventStream, SSE_HEADERS } from "./event-stream";

async function createBus(): Promise<EventBus> {
  if (databaseEngine(env.DATABASE_URL) === "postgres") {
    const { createPostgresBus } = await import("./postgres-bus");
    return createPostgresBus({ url: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL });
  }
  const { createMemoryBus } = await import("./memory-bus");
  return createMemoryBus();
}

async function createHub(): Promise<EventHub> {
  return new EventHub(await createBus(), {
    total: env.EVENTS_MAX_STREAMS,
    perOwner: env.EVENTS_MAX_STREAMS_PER_OWNER,
    perAddress: env.EVENTS_MAX_STREAMS_PER_ADDRESS,
  });
}

// Cached on globalThis in every environment, not only in development: route
// handlers and server actions may load this module more than once, and an
// in-process bus works only if all of them share one.
const globalForEvents = globalThis as unknown as { framehookEvents?: Promise<EventHub> };

export function eventHub(): Promise<EventHub> {
  return (globalForEvents.framehookEvents ??= createHub());
}

/** Tells every stream (on every instance) that a generation changed. Never throws: events are hints. */
export function publishGenerationChange(change: Omit<GenerationEvent, "at">): Promise<void> {
  const attributes = { "framehook.generation.id": change.id, "framehook.generation.state": change.state, ...(change.ownerId ? { "framehook.owner.id": change.ownerId } : {}) };
  return traced("generation.publish", { attributes }, async () => {
    try {
      await (await eventHub()).publish(change);
    } catch (error) {
      console.warn(`[framehook] could not publish the change of ${change.id}:`, error);
    }
  });
}

/** Tells the owner's open streams (on every instance) that their credits changed. Never throws: events are hints. */
export async function publishCreditsChange(ownerId: string): Promise<void> {
  try {
    await (await eventHub()).publishCredits(ownerId);
  } catch (error) {
    console.warn("[framehook] could not publish a credits change:", error);
  }
}
