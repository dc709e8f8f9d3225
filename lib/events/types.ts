// What travels on the event bus: "generation X changed", never the row itself.
// Ids, not rows: PostgreSQL caps a NOTIFY payload at 8000 bytes, and a browser
// refetches what it may see through the same scoped API as any other read.
import type { GenerationState } from "@/lib/generations/generation";

export type GenerationEvent = {
  id: string;
  state: GenerationState;
  /** ISO time of the row's last write. */
  updatedAt: string;
  /** Server-side only: streams filter on it; it is never sent to a browser. */
  ownerId: string | null;
  /** Publish time in ms: the stream's event id, comparable across instances for catch-up. */
  at: number;
};

/** Hears every event the bus carries, and every gap where it may have missed some. */
export type BusListener = {
  onEvent: (event: GenerationEvent) => void;
  /** The bus lost events (a dropped LISTEN connection, …): subscribers should revalidate. */
  onGap: () => void;
};

/** One implementation per backend (memory-bus.ts, postgres-bus.ts), chosen once in index.ts. */
export interface EventBus {
  publish(event: GenerationEvent): Promise<void>;
  subscribe(listener: BusListener): () => void;
  close(): Promise<void>;
}

/** Fans one message out to local listeners; a throwing listener never stops the others. */
export function dispatch(listeners: Iterable<BusListener>, message: { event: GenerationEvent } | "gap") {
  for (const listener of [...listeners]) {
    try {
      if (message === "gap") listener.onGap();
      else listener.onEvent(message.event);
    } catch (error) {
      console.error("[framehook] event listener failed:", error);
    }
  }
}
