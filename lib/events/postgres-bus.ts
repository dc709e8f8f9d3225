// The event bus across instances: PostgreSQL LISTEN/NOTIFY on one dedicated
// connection per instance. It must be a direct (session) connection: a
// transaction-mode pooler such as PgBouncer drops LISTEN between statements.
// Events are hints (browsers keep a slow safety-net poll), so a NOTIFY that
// cannot be sent is logged and dropped, and a lost connection reconnects with
// backoff and tells subscribers there was a gap, so they revalidate.
import pg from "pg";
import { isRecord } from "@/lib/http/json";
import { dispatch, isCreditsEvent, type BusEvent, type BusListener, type EventBus, type GenerationEvent } from "./types";

export const CHANNEL = "framehook_generation_events";
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7999;
const PUBLISH_TIMEOUT_MS = 2_000;
const MAX_BACKOFF_MS = 10_000;

export function createPostgresBus({ url, channel = CHANNEL }: { url: string; channel?: string }): EventBus {
  const listeners = new Set<BusListener>();
  let client: pg.Client | undefined;
  let ready: Promise<pg.Client> | undefined;
  let closed = false;
  let failures = 0;

  const connect = (): Promise<pg.Client> => {
    const next = new pg.Client({ connectionString: url, application_name: "framehook-events", keepAlive: true });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      ready = undefined;
      next.removeAllListeners("notification");
      void next.end().catch(() => {});
      if (closed) return;
      console.warn(`[framehook] event bus connection lost${error ? `: ${error.message}` : ""}; reconnecting`);
      scheduleReconnect();
    };
    next.on("error", lost);
    next.on("end", () => lost());
    next.on("notification", (message) => {
      const event = parseEvent(message.payload);
      if (event) dispatch(listeners, { event });
    });
    client = next;
    return next
      .connect()
      .then(() => next.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
      .then(() => {
        // Whatever was published while we were away is unknown: say so.
        if (failures > 0) dispatch(listeners, "gap");
        failures = 0;
        return next;
      })
      .catch((error: Error) => {
        lost(error);
        throw error;
      });
  };

  const scheduleReconnect = () => {
    failures++;
    const delay = Math.min(250 * 2 ** (failures - 1), MAX_BACKOFF_MS);
    setTimeout(() => {
      if (!closed && !ready) ready = connect();
      ready?.catch(() => {});
    }, delay).unref();
  };

  // Listen from start-up, not from the first publish: other instances' events must arrive.
  ready = connect();
  ready.catch(() => {});

  // Publishes go out in batches on the listening connection, one query at a
  // time: what is queued while a NOTIFY is in flight leaves in the next one
  // (a storm of callbacks costs a few round trips, not one each).
  let queued: { payload: string; id: string; sent: () => void }[] = [];
  let sending = false;
  const sendQueued = async () => {
    sending = true;
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      try {
        // Never a connect of its own: the listener reconnects on its own schedule.
        const current = ready ?? Promise.reject(new Error("not connected"));
        const payloads = batch.map((b) => b.payload);
        const send = current.then((c) => c.query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", [channel, payloads]));
        await withTimeout(send, PUBLISH_TIMEOUT_MS);
      } catch (error) {
        const ids = batch.map((b) => b.id);
        console.warn(`[framehook] could not publish the change of ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ` and ${ids.length - 3} more` : ""}: ${(error as Error).message}`);
      }
      for (const b of batch) b.sent();
    }
    sending = false;
  };

  return {
    publish(event: BusEvent) {
      const id = isCreditsEvent(event) ? `credits of ${event.ownerId}` : event.id;
      // A card too large for NOTIFY (many long result URLs) stays behind: tabs refetch that one.
      let payload = JSON.stringify(event);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) payload = JSON.stringify({ ...event, card: undefined });
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
        console.warn(`[framehook] event for ${id} too large for NOTIFY; dropped`);
        return Promise.resolve();
      }
      return new Promise<void>((sent) => {
        queued.push({ payload, id, sent });
        if (!sending) void sendQueued();
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      const current = client;
      client = undefined;
      ready = undefined;
      await current?.end().catch(() => {});
    },
  };
}

function parseEvent(payload: string | undefined): BusEvent | undefined {
  try {
    const parsed = JSON.parse(payload ?? "") as Record<string, unknown>;
    if (parsed.kind === "credits") {
      return typeof parsed.ownerId === "string" && typeof parsed.at === "number" ? { kind: "credits", ownerId: parsed.ownerId, at: parsed.at } : undefined;
    }
    const value = parsed as Partial<GenerationEvent>;
    if (typeof value.id !== "string" || typeof value.state !== "string" || typeof value.at !== "number") return undefined;
    return {
      id: value.id,
      state: value.state,
      updatedAt: String(value.updatedAt),
      ownerId: typeof value.ownerId === "string" ? value.ownerId : null,
      at: value.at,
      // Written by this app's own publisher on its own channel: passed on as it came.
      ...(value.deleted === true ? { deleted: true } : {}),
      ...(isRecord(value.card) ? { card: value.card as GenerationEvent["card"] } : {}),
    };
  } catch {
    return undefined;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
