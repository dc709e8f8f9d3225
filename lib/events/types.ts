// What travels on the event bus: "generation X changed", with what its card
// shows (never its inputs or the owner's secrets), so that an open tab renders
// the change without a read; and "owner Y's credits changed" (a purchase
// credited, a refund, an adjustment), on which their tabs re-read the balance. A card too large for the bus (PostgreSQL caps a
// NOTIFY payload at 8000 bytes) is left out: the tab then refetches through
// the scoped API. Who receives which part is decided in
// lib/generations/visibility.ts.
import type { GenerationState, LiveCard } from "@/lib/generations/generation";

export type GenerationEvent = {
  id: string;
  state: GenerationState;
  /** ISO time of the row's last write. */
  updatedAt: string;
  /** Server-side only: streams filter on it; it is never sent to a browser. */
  ownerId: string | null;
  /** Deleted from the gallery by its owner: tabs drop the card, and nobody is sent what it shows. */
  deleted?: boolean;
  /** The card as the write left it; absent when the publisher did not have it or it was too large. */
  card?: LiveCard;
  /** Publish time in ms: the stream's event id, comparable across instances for catch-up. */
  at: number;
};

/** An owner's credit balance changed outside their own submissions: their open tabs re-read it. */
export type CreditsEvent = {
  kind: "credits";
  /** Server-side only: streams filter on it; the browser is told only that its balance changed. */
  ownerId: string;
  at: number;
};

export type BusEvent = GenerationEvent | CreditsEvent;

export const isCreditsEvent = (event: BusEvent): event is CreditsEvent => "kind" in event && event.kind === "credits";

/**
 * What a browser is told about a change (never the owner): the card, or that
 * it was removed, or only "it changed" when there is no card to send.
 */
export type LiveChange = { id: string; state: GenerationState; updatedAt: string; removed?: true; card?: LiveCard };

/** Hears every event the bus carries, and every gap where it may have missed some. */
export type BusListener = {
  onEvent: (event: BusEvent) => void;
  /** The bus lost events (a dropped LISTEN connection, …): subscribers should revalidate. */
  onGap: () => void;
};

/** One implementation per backend (memory-bus.ts, postgres-bus.ts), chosen once in index.ts. */
export interface EventBus {
  publish(event: BusEvent): Promise<void>;
  subscribe(listener: BusListener): () => void;
  close(): Promise<void>;
}

/** Fans one message out to local listeners; a throwing listener never stops the others. */
export function dispatch(listeners: Iterable<BusListener>, message: { event: BusEvent } | "gap") {
  for (const listener of [...listeners]) {
    try {
      if (message === "gap") listener.onGap();
      else listener.onEvent(message.event);
    } catch (error) {
      console.error("[framehook] event listener failed:", error);
    }
  }
}
