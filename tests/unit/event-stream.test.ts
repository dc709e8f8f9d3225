// One tab's event stream over a real in-process bus: a viewer's filter holds
// for live and replayed events, streams are bounded per instance and release
// everything when the tab goes away, and a stream ends itself on time.
import { describe, expect, test } from "vitest";
import { openEventStream } from "@/lib/events/event-stream";
import { EventHub } from "@/lib/events/hub";
import { createMemoryBus } from "@/lib/events/memory-bus";
import type { GenerationEvent } from "@/lib/events/types";

const change = (id: string, ownerId: string): Omit<GenerationEvent, "at"> => ({ id, state: "SUCCESS", updatedAt: new Date().toISOString(), ownerId });
const ownedBy = (ownerId: string) => (event: GenerationEvent) => (event.ownerId === ownerId ? { id: event.id, state: event.state, updatedAt: event.updatedAt } : undefined);

/** Everything the stream sends until `until` holds (or it ends), as text. */
async function readUntil(stream: ReadableStream<Uint8Array>, until: (text: string) => boolean, timeoutMs = 3000): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  while (!until(text) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(r, deadline - Date.now()))]);
    if (!next || next.done) break;
    text += decoder.decode(next.value);
  }
  reader.releaseLock();
  return text;
}

function open(hub: EventHub, options: Partial<Parameters<typeof openEventStream>[0]> = {}) {
  const abort = new AbortController();
  const stream = openEventStream({ hub, view: (event) => ({ id: event.id, state: event.state, updatedAt: event.updatedAt }), lastEventId: null, signal: abort.signal, lifetimeMs: 60_000, ...options });
  return { stream, abort };
}

describe("a viewer's stream", () => {
  test("never carries another owner's generation, live or replayed", async () => {
    const hub = new EventHub(createMemoryBus(), { total: 10 });
    const first = open(hub, { view: ownedBy("owner-alice") });
    const opened = await readUntil(first.stream!, (t) => t.includes("event: ready"));
    const mark = /id: (\d+)\nevent: ready/.exec(opened)![1]!;
    await hub.publish(change("gen-bob", "owner-bob"));
    await hub.publish(change("gen-alice", "owner-alice"));
    const live = await readUntil(first.stream!, (t) => t.includes("gen-alice"));
    expect(live).toContain("gen-alice");
    expect(live).not.toContain("gen-bob");
    // The owner is for filtering only: it never leaves the server.
    expect(live).not.toContain("owner-");
    first.abort.abort();

    const again = open(hub, { view: ownedBy("owner-alice"), lastEventId: mark });
    const replayed = await readUntil(again.stream!, (t) => t.includes("event: ready"));
    expect(replayed).toContain("gen-alice");
    expect(replayed).not.toContain("gen-bob");
    again.abort.abort();
  });
});

describe("stream lifecycle", () => {
  test("streams are bounded per instance, and a closed tab frees its slot and its listener", async () => {
    const hub = new EventHub(createMemoryBus(), { total: 2 });
    const a = open(hub);
    const b = open(hub);
    expect(a.stream && b.stream).toBeTruthy();
    expect(open(hub).stream).toBeUndefined();
    expect(hub.openStreams).toBe(2);

    a.abort.abort();
    expect(hub.openStreams).toBe(1);
    expect(hub.listeners).toBe(1);
    const c = open(hub);
    expect(c.stream).toBeDefined();
    await b.stream!.cancel();
    c.abort.abort();
    expect(hub.openStreams).toBe(0);
    expect(hub.listeners).toBe(0);
  });

  test("one owner or one address gets its share of the slots, never all of them; a closed stream frees its share", () => {
    const hub = new EventHub(createMemoryBus(), { total: 5, perOwner: 2, perAddress: 3 });
    const as = (ownerId: string, address: string) => open(hub, { holder: { ownerId, address } });
    const ann = [as("ann", "home"), as("ann", "home")];
    expect(ann.every((s) => s.stream)).toBe(true);
    expect(as("ann", "office").stream).toBeUndefined(); // ann's share, wherever she is
    expect(as("ben", "home").stream).toBeDefined(); // the address's third
    expect(as("cat", "home").stream).toBeUndefined(); // the address's share
    expect(as("cat", "away").stream).toBeDefined();
    expect(hub.openStreams).toBe(4);
    ann[0]!.abort.abort();
    ann[0]!.abort.abort();
    expect(hub.openStreams).toBe(3);
    expect(as("ann", "home").stream).toBeDefined();
    expect(as("dan", "elsewhere").stream).toBeDefined();
    expect(as("eve", "elsewhere").stream).toBeUndefined(); // the instance's five
  });

  test("a stream ends itself before its lifetime is up, and sends heartbeats meanwhile", async () => {
    const hub = new EventHub(createMemoryBus(), { total: 2 });
    const { stream } = open(hub, { lifetimeMs: 400, heartbeatMs: 100 });
    // Read to the stream's own end (nothing here aborts it: one that never ends fails on the test's timeout).
    const reader = stream!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += decoder.decode(next.value);
    expect(text.match(/^: ping$/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^retry: \d+$/m);
    expect(hub.openStreams).toBe(0);
  });

  test("a bus gap tells every stream to revalidate", async () => {
    let gap = () => {};
    const bus = createMemoryBus();
    const hub = new EventHub({ ...bus, subscribe: (listener) => ((gap = listener.onGap), bus.subscribe(listener)) }, { total: 2 });
    const { stream, abort } = open(hub);
    await readUntil(stream!, (t) => t.includes("event: ready"));
    gap();
    expect(await readUntil(stream!, (t) => t.includes("resync"))).toContain("event: resync");
    abort.abort();
  });
});
