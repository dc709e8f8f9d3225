// GALLERY_SCOPE=shared through the real routes, database and simulator: a
// finished video is shown to everyone until its owner deletes it; then only
// its owner still opens it, everyone else gets the 404 of a missing one, and
// every open stream is told, so other tabs drop the card.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";
import { callAction } from "../support/server-actions";
import { SseReader } from "../support/sse-reader";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-shared-gallery-"));
const app = await startApp({ env: { GALLERY_SCOPE: "shared", MEDIA_STORAGE: "local", MEDIA_LOCAL_DIR: MEDIA_DIR, SUBMIT_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");
const { runDueMediaJobs } = await import("@/lib/copies/copy-jobs");

const streams: SseReader[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});

type Visitor = ReturnType<typeof app.visitor>;
/** A client that never keeps a cookie: each request is a brand-new visitor. */
const noCookie: Visitor = Object.assign((p: string, init: RequestInit = {}) => fetch(new URL(p, app.baseUrl), init), {
  ownerId: async () => "",
  cookieHeader: async () => "",
});

/** Alice's finished video, copied into storage: its id and its stored copy's id. */
async function sharedVideo(alice: Visitor) {
  const response = await alice("/api/generations", {
    method: "POST",
    json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `lantern festival ${uniqueMarker("shared")}`, duration: 2 } },
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS");
  const copy = await waitFor(async () => {
    await runDueMediaJobs({ generationIds: [id] });
    return (await prisma.mediaCopy.findFirst({ where: { generationId: id, state: "DONE" } })) ?? null;
  });
  return { id, mediaId: copy.id };
}

async function openStream(visitor: Visitor) {
  const stream = await SseReader.open(`${app.baseUrl}/api/generations/events`, { Cookie: await visitor.cookieHeader() });
  streams.push(stream);
  await waitFor(() => stream.messages.some((m) => m.event === "ready"));
  return stream;
}

const listIds = async (visitor: Visitor) => ((await (await visitor("/api/generations?limit=100")).json()) as { items: { id: string }[] }).items.map((g) => g.id);
const statuses = async (visitor: Visitor, { id, mediaId }: { id: string; mediaId: string }) => ({
  generation: (await visitor(`/api/generations/${id}`)).status,
  media: (await visitor(`/api/media/${mediaId}`, { headers: { Range: "bytes=0-99" } })).status,
});

describe("a showcase video its owner deleted", () => {
  test("is a 404 for everyone but its owner, in the API, the list and stored media", async () => {
    const [alice, bob] = [app.visitor(), app.visitor()];
    const video = await sharedVideo(alice);
    // Shown to everyone while it is in the showcase.
    expect(await statuses(bob, video)).toEqual({ generation: 200, media: 206 });
    expect(await statuses(noCookie, video)).toEqual({ generation: 200, media: 206 });
    expect(await listIds(bob)).toContain(video.id);

    // Deleted as the owner's Delete button does: the app's own server action.
    expect((await callAction(alice, "deleteGenerationAction", [video.id])).status).toBe(200);

    const missing = await bob("/api/generations/does-not-exist");
    const deleted = await bob(`/api/generations/${video.id}`);
    expect(deleted.status).toBe(404);
    expect(await deleted.json()).toEqual(await missing.json());
    expect(await statuses(bob, video)).toEqual({ generation: 404, media: 404 });
    expect(await statuses(noCookie, video)).toEqual({ generation: 404, media: 404 });
    expect(await listIds(bob)).not.toContain(video.id);
    // A cursor naming it shows nothing either.
    expect(((await (await bob(`/api/generations?cursor=${video.id}`)).json()) as { items: unknown[] }).items).toEqual([]);
    // Its owner still opens it (their own list leaves it out, as before).
    expect(await statuses(alice, video)).toEqual({ generation: 200, media: 206 });
    expect(await listIds(alice)).not.toContain(video.id);
  });

  test("is announced on every stream that shows it, so other tabs drop the card", async () => {
    const [alice, bob] = [app.visitor(), app.visitor()];
    const video = await sharedVideo(alice);
    const [alicesTab, bobsTab] = [await openStream(alice), await openStream(bob)];
    // Deleted as the owner's Delete button does: the app's own server action.
    expect((await callAction(alice, "deleteGenerationAction", [video.id])).status).toBe(200);
    // Told it is removed, and nothing of what it showed: the tab drops the card without a read.
    // The removal is the change waited for: a tab may first hear the card's earlier ones (its copy finishing).
    for (const tab of [alicesTab, bobsTab]) {
      const change = await waitFor(() => tab.changes().find((c) => c.id === video.id && c.removed === true));
      expect(change).toEqual({ id: video.id, state: "SUCCESS", updatedAt: expect.any(String), removed: true });
    }
    expect(await listIds(bob)).not.toContain(video.id);
  });
});

describe("a showcase card", () => {
  /** The buttons of the server-rendered card (or detail page's actions) that hold `prompt`, by their visible text. */
  const buttonsIn = (html: string, prompt: string) => {
    const part = html.split(/<article\b/).find((chunk) => chunk.includes(prompt)) ?? "";
    return [...part.matchAll(/<button\b[^>]*>([^<]*)/g)].map((m) => m[1]!.trim()).filter(Boolean);
  };
  const page = async (visitor: Visitor, path: string) => {
    const response = await visitor(path);
    expect(response.status).toBe(200);
    return response.text();
  };

  test("offers another owner's video to watch and remix, never to retry, delete or continue from", async () => {
    const [alice, bob] = [app.visitor(), app.visitor()];
    const video = await sharedVideo(alice);
    const { prompt } = (await (await alice(`/api/generations/${video.id}`)).json()) as { prompt: string };
    // Its owner's card offers everything: the video is Ready with its copy stored (the ways to continue behind "Continue…", and Share).
    expect(buttonsIn(await page(alice, "/"), prompt)).toEqual(["Remix", "Copy prompt", "Continue…", "Use last frame as first frame", "Use first frame", "Use as reference video", "Delete", "Share"]);
    // Everyone else's, in the gallery and on the detail page: watch, remix, copy; never share.
    expect(buttonsIn(await page(bob, "/"), prompt)).toEqual(["Remix", "Copy prompt"]);
    const detail = await page(bob, `/generations/${video.id}`);
    expect(detail).toContain("Copy prompt");
    expect(detail).not.toMatch(/>Delete<|>Use last frame as first frame<|>Share</);
  });
});

describe("a showcase viewer's stream", () => {
  test("carries another owner's finished card without what only its owner sees", async () => {
    const [alice, bob] = [app.visitor(), app.visitor()];
    const bobsTab = await openStream(bob);
    const video = await sharedVideo(alice);
    const change = await waitFor(() => bobsTab.changes().find((c) => c.id === video.id && c.state === "SUCCESS"));
    const read = (await (await bob(`/api/generations/${video.id}`)).json()) as Record<string, unknown>;
    expect(change.card).toMatchObject({ state: "SUCCESS", creditsConsumed: read.creditsConsumed, resultUrls: read.resultUrls });
    // Never its earlier states (not shown to others), nor its owner, task, inputs or metadata.
    expect(bobsTab.changes().filter((c) => c.id === video.id).map((c) => c.state)).not.toContain("PENDING");
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: video.id } });
    const text = JSON.stringify(bobsTab.changes().filter((c) => c.id === video.id));
    for (const secret of [row.ownerId, '"taskId"', '"input"', '"gatewayMetadata"', '"prompt"']) expect(text).not.toContain(secret);
  });

  test("is never sent the card of a video deleted before it finished", async () => {
    const [alice, bob] = [app.visitor(), app.visitor()];
    const bobsTab = await openStream(bob);
    const marker = uniqueMarker("deleted-pending");
    await app.simulator.scenario({ match: marker, pendingMs: 1500 });
    const response = await alice("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: `quiet harbour ${marker}`, duration: 2 } } });
    const { id } = (await response.json()) as { id: string };
    expect((await callAction(alice, "deleteGenerationAction", [id])).status).toBe(200);
    // Followed all the same: its callback applies the outcome, which nobody else may see.
    await waitFor(async () => (await prisma.generation.findUniqueOrThrow({ where: { id } })).state === "SUCCESS", 15_000);
    await waitFor(() => bobsTab.changes().some((c) => c.id === id));
    expect(bobsTab.changes().filter((c) => c.id === id)).toEqual([{ id, state: "SUCCESS", updatedAt: expect.any(String), removed: true }]);
  });
});
