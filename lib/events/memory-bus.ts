// The event bus of a single instance (SQLite's case): an in-process fan-out.
// Enough because SQLite serves one process; several instances need postgres-bus.ts.
import { dispatch, type BusEvent, type BusListener, type EventBus } from "./types";

export function createMemoryBus(): EventBus {
  const listeners = new Set<BusListener>();
  return {
    async publish(event: BusEvent) {
      dispatch(listeners, { event });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}
