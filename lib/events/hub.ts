// The app's side of the bus: publishes changes, fans them out to this
// instance's open streams, and keeps the last few minutes of events so that a
// browser reconnecting with Last-Event-ID is sent what it missed.
import type { BusEvent, BusListener, EventBus, GenerationEvent } from "./types";

const RECENT_MAX = 1_000;
const RECENT_MS = 5 * 60_000;

export type Replay = { events: BusEvent[] } | "resync";

/**
 * Open streams this instance serves: in all, and per owner and per client
 * address, so that one client cannot take every slot. Counted in memory: the
 * slots are this instance's own connections.
 */
export type StreamLimits = { total: number; perOwner?: number; perAddress?: number };
/** Who holds a stream: the viewer, and the client's address key (visitorKey). */
export type StreamHolder = { ownerId: string; address: string };

export class EventHub {
  private readonly recent: BusEvent[] = [];
  /** Events at or after this time are all in `recent` (it moves on with evictions and gaps). */
  private horizon = Date.now();
  private readonly local = new Set<BusListener>();
  private streams = 0;
  private readonly held = new Map<string, number>();
  private mark = 0;

  constructor(
    private readonly bus: EventBus,
    readonly limits: StreamLimits,
  ) {
    bus.subscribe({
      onEvent: (event) => {
        this.mark = Math.max(this.mark, event.at);
        this.remember(event);
        for (const listener of [...this.local]) listener.onEvent(event);
      },
      onGap: () => {
        this.horizon = Date.now();
        for (const listener of [...this.local]) listener.onGap();
      },
    });
  }

  publish(change: Omit<GenerationEvent, "at">): Promise<void> {
    return this.bus.publish({ ...change, at: this.nextMark() });
  }

  /** Tells the owner's open streams that their credit balance changed. */
  publishCredits(ownerId: string): Promise<void> {
    return this.bus.publish({ kind: "credits", ownerId, at: this.nextMark() });
  }

  /**
   * A stream position: the time in ms, strictly increasing on this instance so
   * that an event id names one event. Every event this instance has seen is
   * at or before it.
   */
  nextMark(): number {
    this.mark = Math.max(Date.now(), this.mark + 1);
    return this.mark;
  }

  /** Listens until the returned function is called. */
  listen(listener: BusListener): () => void {
    this.local.add(listener);
    return () => void this.local.delete(listener);
  }

  /** Events after the one named `at`, or "resync" if this instance's history does not reach back that far. */
  replaySince(at: number): Replay {
    this.prune();
    if (!Number.isFinite(at) || at < this.horizon) return "resync";
    return { events: this.recent.filter((event) => event.at > at) };
  }

  /**
   * Claims a stream slot for `holder`, and returns the function that frees it
   * (once, however often it is called); undefined when the owner or the
   * address already holds its share (checked first), or the instance serves
   * its maximum.
   */
  claimStream(holder?: StreamHolder): (() => void) | undefined {
    const keys = holder ? [`owner:${holder.ownerId}`, `address:${holder.address}`] : [];
    const shares = [this.limits.perOwner, this.limits.perAddress];
    if (keys.some((key, i) => (this.held.get(key) ?? 0) >= (shares[i] ?? Infinity))) return undefined;
    if (this.streams >= this.limits.total) return undefined;
    this.streams++;
    for (const key of keys) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.streams = Math.max(0, this.streams - 1);
      for (const key of keys) {
        const left = (this.held.get(key) ?? 1) - 1;
        if (left > 0) this.held.set(key, left);
        else this.held.delete(key);
      }
    };
  }

  get openStreams() {
    return this.streams;
  }

  /** Local listeners (one per open stream): for leak checks. */
  get listeners() {
    return this.local.size;
  }

  close() {
    return this.bus.close();
  }

  private remember(event: BusEvent) {
    this.recent.push(event);
    this.prune();
  }

  private prune() {
    const cutoff = Date.now() - RECENT_MS;
    while (this.recent.length > RECENT_MAX || (this.recent[0] && this.recent[0].at < cutoff)) {
      this.horizon = Math.max(this.horizon, this.recent.shift()!.at + 1);
    }
    this.horizon = Math.max(this.horizon, cutoff);
  }
}
