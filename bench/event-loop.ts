// The bench's side of bench/event-loop-probe.mjs: reset the app's event-loop
// delay histogram before a load, read it after.
import path from "node:path";

export const EVENT_LOOP_PROBE = path.resolve("bench/event-loop-probe.mjs");

export type EventLoopDelay = { pid: number; samples: number; p50: number; p99: number; max: number };

export class EventLoopProbe {
  constructor(private readonly url: string) {}

  async read(): Promise<EventLoopDelay> {
    return this.get("/");
  }

  /** Starts a new measurement; answers the figures of the one it ends. */
  async reset(): Promise<EventLoopDelay> {
    return this.get("/reset");
  }

  /** The delay while `load` runs: the histogram is reset at its start and read at its end. */
  async during<T>(load: () => Promise<T>): Promise<{ result: T; delay: EventLoopDelay }> {
    await this.reset();
    const result = await load();
    return { result, delay: await this.read() };
  }

  private async get(pathname: string): Promise<EventLoopDelay> {
    const response = await fetch(`${this.url}${pathname}`, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`event-loop probe answered ${response.status}`);
    return (await response.json()) as EventLoopDelay;
  }
}
