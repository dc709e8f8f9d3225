// The live gallery's server side through real parts: every writer publishes
// a change that an open /api/generations/events stream carries, the stream
// behaves as browsers and proxies need, and reconnects catch up.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { submitPrompt } from "../support/generations";
import { callAction } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";
import { SseReader } from "../support/sse-reader";

// One visitor keeps a stream per test open until the end: more than a browser's share (its own test: event-stream-slots).
const app = await startApp({ env: { POLL_STALE_MS: "1000", SIMULATOR_PENDING_MS: "300", EVENTS_MAX_STREAMS_PER_OWNER: "100", EVENTS_MAX_STREAMS_PER_ADDRESS: "100" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

const streams: SseReader[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await app.close();
});

/** A stream opened as the visitor the tests submit as (app.fetch): it carries only that owner's generations. */
async function openStream(headers: Record<string, string> = {}) {
  const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await app.fetch.cookieHeader(), ...headers });
  streams.push(stream);
  await waitFor(() => stream.messages.some((m) => m.event === "ready"));
  return stream;
}

/**
 * The states the stream carried for one generation, in order, one per version
 * of the row: a finished media copy announces the generation again without
 * changing it (same state, same updatedAt), and that repeat is not a new state.
 */
const statesOf = (stream: SseReader, id: string) =>
  stream
    .changes()
    .filter((c) => c.id === id)
    .filter((c, i, all) => i === 0 || c.state !== all[i - 1]!.state || c.updatedAt !== all[i - 1]!.updatedAt)
    .map((c) => c.state);
const carried = (stream: SseReader, id: string, state: string) =>
  waitFor(() => statesOf(stream, id).includes(state), 15_000).then(() => statesOf(stream, id));

type Change = ReturnType<SseReader["changes"]>[number];
const readGeneration = async (id: string) => (await (await app.fetch(`/api/generations/${id}`)).json()) as Record<string, unknown>;

/**
 * Every field the event's card names has the value a read of the generation
 * gives (a copy finished since may have moved its stored media), the owner's
 * charge in credits among them: an outcome settles the hold.
 */
function expectCardAsRead(change: Change, read: Record<string, unknown>) {
  const card = change.card as Record<string, unknown>;
  expect(Object.keys(card).sort()).toEqual(
    ["callbackEnabled", "charge", "completedAt", "creditsConsumed", "error", "lost", "notFoundSince", "overdue", "resultUrls", "resultUrlsDropped", "state", "updatedAt"].sort(),
  );
  for (const [field, value] of Object.entries(card)) expect({ field, value }).toEqual({ field, value: read[field] });
}

/** Nothing only the server or the owner's detail page holds: the owner, the task, the inputs, the gateway's metadata, the callback token. */
function expectNoSecrets(change: Change, row: { id: string; ownerId: string }) {
  const text = JSON.stringify(change);
  for (const field of ["ownerId", "taskId", "input", "prompt", "gatewayMetadata", "callbackToken", "webhookUrl"]) expect(text).not.toContain(`"${field}"`);
  expect(text).not.toContain(row.ownerId);
  expect(text).not.toContain(callbackTokenFor(row.id, env.WEBHOOK_SECRET));
}

describe("every writer publishes", () => {
  test("submit and the callback: a new card, then PENDING, then SUCCESS", async () => {
    const stream = await openStream();
    const { body } = await submitPrompt(app, `harbour lights ${uniqueMarker("cb")}`);
    const states = await carried(stream, body.id as string, "SUCCESS");
    expect(states).toEqual(["SUBMITTING", "PENDING", "SUCCESS"]);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: body.id as string } });
    const change = stream.changes().find((c) => c.id === row.id && c.state === "SUCCESS")!;
    expect(change.updatedAt).toBe(row.updatedAt.toISOString());
    // What the card shows, as the API would answer it, so that a tab renders the outcome without a read.
    expectCardAsRead(change, await readGeneration(row.id));
    expect(change.card).toMatchObject({ state: "SUCCESS", creditsConsumed: row.creditsConsumed, error: null });
    expect((change.card as { resultUrls: string[] }).resultUrls).toEqual(JSON.parse(row.resultUrls));
    expectNoSecrets(change, row);
  });

  test("a failure by callback carries its reason and its zero cost", async () => {
    const stream = await openStream();
    const marker = uniqueMarker("fail");
    await app.simulator.scenario({ match: marker, outcome: "failure", failCode: "content_policy" });
    const { body } = await submitPrompt(app, `refused ${marker}`);
    const id = body.id as string;
    expect(await carried(stream, id, "FAILURE")).toContain("PENDING");
    const change = stream.changes().find((c) => c.id === id && c.state === "FAILURE")!;
    const read = await readGeneration(id);
    expect(read.error).toMatchObject({ code: "content_policy" });
    expectCardAsRead(change, read);
    expect(change.card).toMatchObject({ creditsConsumed: 0, resultUrls: [], error: read.error });
    expectNoSecrets(change, await prisma.generation.findUniqueOrThrow({ where: { id } }));
  });

  test("a deletion is announced as removed, without the card", async () => {
    const stream = await openStream();
    const { body } = await submitPrompt(app, `soon gone ${uniqueMarker("deleted")}`);
    const id = body.id as string;
    await carried(stream, id, "SUCCESS");
    expect((await callAction(app.fetch, "deleteGenerationAction", [id])).status).toBe(200);
    const removed = await waitFor(() => stream.changes().find((c) => c.id === id && c.removed === true));
    expect(removed).toEqual({ id, state: "SUCCESS", updatedAt: expect.any(String), removed: true });
  });

  test("the polling refresh, when the callback never comes", async () => {
    const stream = await openStream();
    const marker = uniqueMarker("poll");
    await app.simulator.scenario({ match: marker, pendingMs: 100, callback: { mode: "drop" } });
    const { body } = await submitPrompt(app, `quiet ${marker}`);
    await prisma.generation.update({ where: { id: body.id as string }, data: { lastHeardAt: new Date(0) } });
    await waitFor(async () => {
      await app.fetch(`/api/generations/${body.id}`);
      return statesOf(stream, body.id as string).includes("SUCCESS");
    }, 15_000);
    const deliveries = await prisma.delivery.findMany({ where: { generationId: body.id as string } });
    expect(deliveries.map((d) => `${d.source}:${d.outcome}`)).toContain("POLL:APPLIED");
  });

  test("a submission the gateway refuses", async () => {
    const stream = await openStream();
    const marker = uniqueMarker("refused");
    await app.simulator.scenario({ match: marker, submitStatus: 402 });
    const { status } = await submitPrompt(app, `too dear ${marker}`);
    // The gateway's 402 is the operator's balance, not the visitor's credits: the app answers 503 (lib/generations/submit-failure.ts).
    expect(status).toBe(503);
    const row = await prisma.generation.findFirstOrThrow({ where: { prompt: { contains: marker } } });
    expect(await carried(stream, row.id, "SUBMIT_FAILED")).toEqual(["SUBMITTING", "SUBMIT_FAILED"]);
  });

  test("the cron, giving up on a submission the app never finished", async () => {
    const stream = await openStream();
    const row = await prisma.generation.create({
      data: { model: "alpha-2.5-text-to-video-480p", prompt: "interrupted", ownerId: await app.fetch.ownerId(), createdAt: new Date(Date.now() - 3_600_000) },
    });
    const response = await app.fetch("/api/cron/reconcile", { headers: { Authorization: `Bearer ${env.CRON_SECRET}` } });
    expect(response.status).toBe(200);
    expect(await carried(stream, row.id, "SUBMIT_FAILED")).toEqual(["SUBMIT_FAILED"]);
  });
});

describe("a finished media copy is announced", () => {
  /** Every event for one generation, repeats included. */
  const eventsFor = (stream: SseReader, id: string) => stream.changes().filter((c) => c.id === id);

  test("DONE: the generation is announced again, so open pages switch to the stored file at once", async () => {
    const stream = await openStream();
    const { body } = await submitPrompt(app, `kept reel ${uniqueMarker("copied")}`);
    const id = body.id as string;
    await waitFor(async () => (await prisma.mediaCopy.findFirst({ where: { generationId: id, state: "DONE" } })) !== null, 15_000);
    await waitFor(() => eventsFor(stream, id).filter((c) => c.state === "SUCCESS").length === 2, 10_000);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    // Both carry the row as it is: the copy changed what plays, not the generation.
    expect(eventsFor(stream, id).map((c) => c.state)).toEqual(["SUBMITTING", "PENDING", "SUCCESS", "SUCCESS"]);
    const copied = eventsFor(stream, id).at(-1)!;
    expect(copied.updatedAt).toBe(row.updatedAt.toISOString());
    // With the stored copy and its still, so the card switches to them from the event.
    const stored = (copied.card as { storedMedia: { status: string; url: string; stillUrl: string | null }[] }).storedMedia;
    expect(stored).toEqual((await readGeneration(id)).storedMedia);
    expect(stored[0]).toMatchObject({ status: "done", url: expect.stringMatching(/^\/api\/media\//), stillUrl: expect.stringMatching(/\/still$/) });
  });

  test("FAILED: a copy that cannot be made is announced too", async () => {
    const stream = await openStream();
    const marker = uniqueMarker("uncopied");
    await app.simulator.scenario({ match: marker, media: { status: 404 } });
    const { body } = await submitPrompt(app, `lost reel ${marker}`);
    const id = body.id as string;
    const failed = await waitFor(() => prisma.mediaCopy.findFirst({ where: { generationId: id, state: "FAILED" } }), 15_000);
    expect(failed.lastError).toContain("404");
    await waitFor(() => eventsFor(stream, id).filter((c) => c.state === "SUCCESS").length === 2, 10_000);
  });
});

describe("the stream", () => {
  test("has the headers that keep proxies and compression from buffering it", async () => {
    const stream = await openStream({ "Accept-Encoding": "gzip, br" });
    const { headers } = stream.response;
    expect(headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(headers.get("x-accel-buffering")).toBe("no");
    expect(headers.get("content-encoding")).toBeNull();
    expect(stream.messages[0]).toMatchObject({ event: "ready", id: expect.stringMatching(/^\d+$/) });
  });

  test("a reconnect with Last-Event-ID is sent what it missed, and only that", async () => {
    const first = await openStream();
    const before = await submitPrompt(app, `before ${uniqueMarker("gap")}`);
    // Its copy's announcement too: after that, nothing more is said about it.
    await waitFor(() => first.changes().filter((c) => c.id === before.body.id && c.state === "SUCCESS").length === 2, 15_000);
    const lastEventId = first.messages.at(-1)!.id!;
    first.close();

    const missed = await submitPrompt(app, `while away ${uniqueMarker("gap")}`);
    // Wait for the outcome in the database, with no stream open to hear it.
    await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id: missed.body.id as string } })).state === "SUCCESS", 15_000);

    const again = await openStream({ "Last-Event-ID": lastEventId });
    expect(statesOf(again, missed.body.id as string)).toEqual(["SUBMITTING", "PENDING", "SUCCESS"]);
    expect(statesOf(again, before.body.id as string)).toEqual([]);
  });

  test("another visitor's stream never carries this visitor's generations", async () => {
    const mine = await openStream();
    const stranger = app.visitor();
    const theirs = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await stranger.cookieHeader() });
    streams.push(theirs);
    await waitFor(() => theirs.messages.some((m) => m.event === "ready"));
    const { body } = await submitPrompt(app, `private ${uniqueMarker("owner")}`);
    await carried(mine, body.id as string, "SUCCESS");
    // Nor its deletion: nothing about it, not even the id.
    expect((await callAction(app.fetch, "deleteGenerationAction", [body.id as string])).status).toBe(200);
    await waitFor(() => mine.changes().some((c) => c.id === body.id && c.removed === true));
    expect(theirs.messages.filter((m) => m.data.includes(body.id as string))).toEqual([]);
  });

  test("a Last-Event-ID older than this instance's history asks the browser to revalidate", async () => {
    const stream = await openStream({ "Last-Event-ID": "1000" });
    // Changes may follow at once (earlier tests' copies finishing): the stream opens with these two.
    expect(stream.messages.map((m) => m.event).slice(0, 2)).toEqual(["resync", "ready"]);
  });
});
