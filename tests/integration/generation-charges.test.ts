// What a generation costs its owner in the kit's credits, as a card is given
// it: the gallery's list, a single read and the live stream's changes all say
// the same (held while in progress, what was captured on SUCCESS, the hold
// given back on FAILURE), and never what another owner's video cost them.
// The gallery is shared here, so that a second visitor sees the first's video.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";
import { callAction } from "../support/server-actions";
import { SseReader } from "../support/sse-reader";

const app = await startApp({ env: { CREDITS_WELCOME_GRANT: "100", GALLERY_SCOPE: "shared", EVENTS_MAX_STREAMS_PER_ADDRESS: "100" } });
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");

const streams: SseReader[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await app.close();
});
beforeAll(() => app.simulator.reset(100));

type Visitor = ReturnType<typeof app.visitor>;
type Charge = { status: string; credits: number } | null;
type Card = { id: string; state: string; charge?: Charge; creditsConsumed: number | null };
// 2 s of the 480p model: $0.2816 at the gateway, × 1.5 ÷ $0.10 = 4.224, held as 5 credits.
const HOLD_2S = 5;

async function openStream(visitor: Visitor) {
  const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await visitor.cookieHeader() });
  streams.push(stream);
  await waitFor(() => stream.messages.some((m) => m.event === "ready"));
  return stream;
}

/** A PENDING generation whose callbacks the simulator will not send: the test reports its outcome. */
async function quietGeneration(visitor: Visitor, label: string) {
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
  const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `charged ${marker}`, duration: 2 } } });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  await app.simulator.settle(marker);
  const [task] = await app.simulator.tasks(marker);
  return { id, task: task!, token: callbackTokenFor(id, env.WEBHOOK_SECRET) };
}

const deliver = (token: string, body: unknown) =>
  app.fetch(`/api/webhooks/gateway?token=${encodeURIComponent(token)}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

/** The card as the detail API and the gallery's list give it to this visitor: the two must agree. */
async function readCard(visitor: Visitor, id: string): Promise<Card> {
  const one = (await (await visitor(`/api/generations/${id}`)).json()) as Card;
  const list = (await (await visitor("/api/generations?limit=100")).json()) as { items: Card[] };
  expect(list.items.find((g) => g.id === id)?.charge, "the list's charge").toEqual(one.charge);
  return one;
}

const changeOf = (stream: SseReader, id: string, state: string) =>
  waitFor(() => stream.changes().find((c) => c.id === id && c.state === state), 15_000) as Promise<{ card?: Card }>;

describe("a generation's charge, read and live", () => {
  test("held while pending, then SUCCESS captures the gateway's figure priced in credits (below the hold: the rest given back)", async () => {
    const visitor = app.visitor();
    const stream = await openStream(visitor);
    const g = await quietGeneration(visitor, "below");
    expect((await changeOf(stream, g.id, "SUBMITTING")).card?.charge).toEqual({ status: "held", credits: HOLD_2S });
    expect((await readCard(visitor, g.id)).charge).toEqual({ status: "held", credits: HOLD_2S });

    // $0.1 × 1.5 ÷ $0.10 = 1.5: 2 credits of the 5 held.
    expect((await deliver(g.token, { ...g.task, creditsConsumed: 0.1 })).status).toBe(200);
    const success = await changeOf(stream, g.id, "SUCCESS");
    expect(success.card?.charge).toEqual({ status: "captured", credits: 2 });
    const read = await readCard(visitor, g.id);
    expect(read.charge).toEqual({ status: "captured", credits: 2 });
    // The gateway's own figure is still there, as its own field.
    expect(read.creditsConsumed).toBe(0.1);
    // The stored copy's announcement, later, carries it too: a tab renders a card from its latest event.
    const copied = (await waitFor(() => stream.changes().filter((c) => c.id === g.id && c.state === "SUCCESS")[1], 15_000)) as { card?: Card };
    expect(copied.card?.charge).toEqual({ status: "captured", credits: 2 });
  });

  test.each([
    { label: "above", creditsConsumed: 5, why: "a gateway figure above the hold" },
    { label: "unsaid", creditsConsumed: null, why: "no figure from the gateway" },
  ])("$why: captured at the hold, on the stream and in a read", async ({ label, creditsConsumed }) => {
    const visitor = app.visitor();
    const stream = await openStream(visitor);
    const g = await quietGeneration(visitor, label);
    expect((await deliver(g.token, { ...g.task, creditsConsumed })).status).toBe(200);
    expect((await changeOf(stream, g.id, "SUCCESS")).card?.charge).toEqual({ status: "captured", credits: HOLD_2S });
    expect((await readCard(visitor, g.id)).charge).toEqual({ status: "captured", credits: HOLD_2S });
  });

  test("FAILURE gives the hold back, and the card says so", async () => {
    const visitor = app.visitor();
    const stream = await openStream(visitor);
    const g = await quietGeneration(visitor, "failed");
    expect((await deliver(g.token, { ...g.task, state: "FAILURE", resultUrls: [], creditsConsumed: 0, failCode: "content_policy", failMsg: "no" })).status).toBe(200);
    expect((await changeOf(stream, g.id, "FAILURE")).card?.charge).toEqual({ status: "released", credits: HOLD_2S });
    expect((await readCard(visitor, g.id)).charge).toEqual({ status: "released", credits: HOLD_2S });
  });

  test("the submitter's own card shows its new hold at once (the retry action's answer), not only from the next read", async () => {
    const visitor = app.visitor();
    const g = await quietGeneration(visitor, "retried");
    expect((await deliver(g.token, { ...g.task, state: "FAILURE", resultUrls: [], creditsConsumed: 0, failCode: "content_policy", failMsg: "no" })).status).toBe(200);
    await waitFor(async () => (await readCard(visitor, g.id)).state === "FAILURE");
    // The retry's task stays PENDING (the scenario of its prompt): the card the action answers with is in flight.
    const { status, text } = await callAction(visitor, "retryGenerationAction", [g.id]);
    expect(status).toBe(200);
    expect(text).toContain('"state":"PENDING"');
    expect(text).toContain(`"charge":{"status":"held","credits":${HOLD_2S}}`);
  });

  test("a generation that held nothing has no charge, not the gateway's figure", async () => {
    const visitor = app.visitor();
    const row = await prisma.generation.create({
      data: { model: "alpha-2.5-text-to-video-480p", prompt: `before credits ${uniqueMarker("old")}`, ownerId: await visitor.ownerId(), state: "SUCCESS", creditsConsumed: 0.704, completedAt: new Date() },
    });
    const read = await readCard(visitor, row.id);
    expect(read.charge).toBeNull();
    expect(read.creditsConsumed).toBe(0.704);
  });

  test("another owner's video in the shared gallery shows nothing of what it cost them, read or live", async () => {
    const [alice, bob] = [app.visitor(), app.visitor()];
    const bobsTab = await openStream(bob);
    const g = await quietGeneration(alice, "theirs");
    expect((await deliver(g.token, g.task)).status).toBe(200);
    const change = await changeOf(bobsTab, g.id, "SUCCESS");
    expect(change.card?.state).toBe("SUCCESS");
    expect(change.card && "charge" in change.card).toBe(false);
    const seen = (await (await bob(`/api/generations/${g.id}`)).json()) as Card & { showcase?: boolean };
    expect(seen.showcase).toBe(true);
    expect("charge" in seen).toBe(false);
    // Their own read still has it.
    expect((await readCard(alice, g.id)).charge).toEqual({ status: "captured", credits: HOLD_2S });
  });
});
