// The live gallery's stream slots through the real route: one client (one
// address, with or without a cookie) gets its share and polls past it, and
// the instance still has slots for everyone else.
import { afterAll, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { SseReader } from "../support/sse-reader";

// One proxy in front (TRUSTED_PROXY_HOPS=1): the X-Forwarded-For a test sends is the client's address.
const app = await startApp({
  env: { EVENTS_MAX_STREAMS: "5", EVENTS_MAX_STREAMS_PER_OWNER: "2", EVENTS_MAX_STREAMS_PER_ADDRESS: "3", TRUSTED_PROXY_HOPS: "1" },
});

const streams: SseReader[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await app.close();
});

/** Opens a stream from `address` (with `cookie`, or none: a new visitor each time) and waits for its first answer. */
async function openFrom(address: string, cookie?: string) {
  const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { "X-Forwarded-For": address, ...(cookie ? { Cookie: cookie } : {}) });
  streams.push(stream);
  if (stream.response.status === 200) await waitFor(() => stream.messages.some((m) => m.event === "ready"));
  return stream.response.status;
}

test("one address without a cookie opens 3 of the 5 streams, then 429; other visitors still get theirs", async () => {
  const flood: number[] = [];
  for (let i = 0; i < 6; i++) flood.push(await openFrom("203.0.113.50"));
  expect(flood).toEqual([200, 200, 200, 429, 429, 429]);

  // One owner across addresses: 2, then 429.
  const cookie = await app.visitor().cookieHeader();
  expect(await openFrom("198.51.100.1", cookie)).toBe(200);
  expect(await openFrom("198.51.100.2", cookie)).toBe(200);
  // The instance's five are now open: a sixth visitor polls.
  expect(await openFrom("192.0.2.9")).toBe(429);

  // A closed stream frees its slot for someone else.
  streams[0]!.close();
  await waitFor(async () => (await openFrom("192.0.2.9")) === 200);
});
