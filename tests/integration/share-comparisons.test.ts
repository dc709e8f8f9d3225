// Public links of comparisons through the real app, database and simulator,
// under the same rules as a shared video's (share-links.test.ts): the owner
// shares a batch (a new link each time), anyone holding the link reads the
// page and each ready video's file (byte ranges, no cookie) and still; a video
// not ready shows as such and serves nothing; stopping, deleting a video or
// the account makes what they cover 404 at once; nobody else can share, stop
// or find it; and the public routes count in the share links' limit.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { callAction } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-share-compare-"));
const RATE_LIMIT = 30;
// One proxy in front (TRUSTED_PROXY_HOPS=1): each test's X-Forwarded-For is its own client address, so counts never meet.
const app = await startApp({
  env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "2", MEDIA_RETENTION_DAYS: "30", SUBMIT_RATE_LIMIT: "0", SHARE_RATE_LIMIT: String(RATE_LIMIT), SHARE_RATE_WINDOW_SECONDS: "600", TRUSTED_PROXY_HOPS: "1" },
});
const { prisma } = await import("@/lib/db");
const { hideGeneration } = await import("@/lib/generations/store");
const { deleteAccount } = await import("@/lib/viewer/delete-account");
const { runDueMediaJobs } = await import("@/lib/copies/copy-jobs");
const { adjustCredits } = await import("@/lib/credits/adjust");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});
beforeAll(() => app.simulator.reset(1000));

type Visitor = ReturnType<typeof app.visitor>;
type Link = { url: string; showPrompt: boolean; sharedAt: string };
const PAIR = [
  { model: "alpha-2.5-text-to-video-480p", input: { duration: 2 } },
  { model: "alpha-2.5-text-to-video", input: { duration: 2 } },
];
const LABELS: Record<string, string> = { "alpha-2.5-text-to-video-480p": "Alpha 2.5 · 480p", "alpha-2.5-text-to-video": "Alpha 2.5" };

let addresses = 0;
/** A stranger with no cookie at all, from an address of its own. */
function stranger() {
  const address = `198.51.100.${++addresses}`;
  return (url: string, init: RequestInit = {}) => fetch(new URL(url, app.baseUrl), { redirect: "manual", ...init, headers: { "X-Forwarded-For": address, ...init.headers } });
}

const share = (visitor: Visitor, id: string, body?: unknown) => visitor(`/api/batches/${id}/share`, { method: "POST", ...(body === undefined ? {} : { json: body }) });
const unshare = (visitor: Visitor, id: string) => visitor(`/api/batches/${id}/share`, { method: "DELETE" });
const tokenOf = (link: Link) => new URL(link.url).pathname.split("/")[2]!;
const pathsOf = (link: Link) => {
  const page = new URL(link.url).pathname;
  return { page, video: (n: number) => `${page}/${n}/video`, still: (n: number) => `${page}/${n}/still` };
};
/** Every public route of a link: the page and each video's file and still. */
const everyPath = (link: Link, videos = PAIR.length) => [pathsOf(link).page, ...Array.from({ length: videos }, (_, n) => [pathsOf(link).video(n), pathsOf(link).still(n)]).flat()];

/**
 * A comparison of PAIR, funded by the operator, submitted through the API;
 * with `pending: 1`, the first of its videos to reach the gateway stays
 * generating (no callback). Waits until the others are Ready with their copy stored.
 */
async function comparison(label: string, { prompt = "a harbour at dawn", pending = 0, visitor = app.visitor() }: { prompt?: string; pending?: 0 | 1 | 2; visitor?: Visitor } = {}) {
  await adjustCredits({ ownerId: await visitor.ownerId(), amount: 100, reason: "share comparisons test" });
  const marker = uniqueMarker(label);
  await app.simulator.scenario({ match: marker });
  // The newest scenario wins, once per task it is given.
  if (pending > 0) await app.simulator.scenario({ match: marker, times: pending, pendingMs: 600_000, callback: { mode: "drop" } });
  const response = await visitor("/api/batches", { method: "POST", json: { prompt: `${prompt} ${marker}`, videos: PAIR } });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  const ready = PAIR.length - pending;
  const generations = await waitFor(
    async () => {
      const rows = await prisma.generation.findMany({ where: { batchId: id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
      return rows.filter((g) => g.state === "SUCCESS").length === ready && rows;
    },
    60_000,
    `${ready} Ready videos in the batch`,
  );
  const done = generations.filter((g) => g.state === "SUCCESS").map((g) => g.id);
  if (done.length > 0) {
    await waitFor(
      async () => {
        await runDueMediaJobs({ generationIds: done });
        const copies = await prisma.mediaCopy.findMany({ where: { generationId: { in: done }, position: 0 } });
        return copies.length === done.length && copies.every((c) => c.state === "DONE");
      },
      30_000,
      "the Ready videos' copies stored",
    );
  }
  const copies = await prisma.mediaCopy.findMany({ where: { generationId: { in: done }, position: 0 } });
  return { id, visitor, marker, generations, copyOf: (generationId: string) => copies.find((c) => c.generationId === generationId) };
}

async function shared(label: string, options: Parameters<typeof comparison>[1] = {}) {
  const made = await comparison(label, options);
  const response = await share(made.visitor, made.id);
  expect(response.status).toBe(200);
  return { ...made, link: (await response.json()) as Link };
}

describe("sharing a comparison", () => {
  test("anyone with the link gets the page with both models side by side, and each video's bytes by range and its still, with no cookie", async () => {
    const { id, generations, copyOf, link } = await shared("share-compare-read");
    expect(link.url).toMatch(new RegExp(`^${app.baseUrl}/c/[A-Za-z0-9_-]{43}$`));
    expect(link.showPrompt).toBe(true);
    const paths = pathsOf(link);
    const visit = stranger();

    const page = await visit(paths.page);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Comparison · 2 models");
    expect(html).toContain("a harbour at dawn");
    expect(html).toContain("Play all from the start");
    for (const [n, generation] of generations.entries()) {
      expect(html).toContain(`aria-label="${LABELS[generation.model]}"`);
      expect(html).toContain(`src="${paths.video(n)}"`);
    }
    // Never who made it, nor the ids behind it.
    const batch = await prisma.batch.findUniqueOrThrow({ where: { id } });
    for (const secret of [batch.ownerId, id, ...generations.map((g) => g.id)]) expect(html).not.toContain(secret);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toMatch(/no-store/);
    expect(page.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const head = html.slice(0, html.indexOf("</head>"));
    const meta = (attribute: string, key: string) => [...head.matchAll(new RegExp(`<meta ${attribute}="${key}" content="([^"]*)"`, "g"))].map((m) => m[1]);
    expect(meta("name", "robots")).toEqual(["noindex, nofollow"]);
    expect(meta("property", "og:image")).toEqual([`${app.baseUrl}${paths.still(0)}`]);
    expect(meta("property", "og:url")).toEqual([link.url]);
    expect(meta("name", "twitter:card")).toEqual(["summary_large_image"]);

    for (const [n, generation] of generations.entries()) {
      const stored = fs.readFileSync(path.join(MEDIA_DIR, copyOf(generation.id)!.storageKey));
      const range = await visit(paths.video(n), { headers: { Range: "bytes=100-1123" } });
      expect(range.status).toBe(206);
      expect(range.headers.get("content-type")).toBe("video/mp4");
      expect(range.headers.get("content-range")).toBe(`bytes 100-1123/${stored.length}`);
      expect(range.headers.get("cache-control")).toBe("no-store");
      expect(range.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
      expect(range.headers.get("set-cookie")).toBeNull();
      expect(Buffer.from(await range.arrayBuffer()).equals(stored.subarray(100, 1124))).toBe(true);
      const still = await visit(paths.still(n));
      expect(still.status).toBe(200);
      expect(still.headers.get("content-type")).toBe("image/jpeg");
      expect(still.headers.get("set-cookie")).toBeNull();
    }
  });

  test("the database keeps the token's hash, never the token; the owner's read of the batch shows the link", async () => {
    const { id, visitor, link } = await shared("share-compare-hash");
    const token = tokenOf(link);
    const row = await prisma.batch.findUniqueOrThrow({ where: { id } });
    expect(row.shareKey).toBe(createHash("sha256").update(token).digest("base64url"));
    expect(JSON.stringify(row)).not.toContain(token);
    const own = (await (await visitor(`/api/batches/${id}`)).json()) as { share: Link | null };
    expect(own.share).toEqual(link);
  });

  test("hiding the prompt: the page and its preview show the models only", async () => {
    const { id, visitor } = await comparison("share-compare-noprompt", { prompt: "my secret plan" });
    const response = await share(visitor, id, { showPrompt: false });
    expect(response.status).toBe(200);
    const link = (await response.json()) as Link;
    expect(link.showPrompt).toBe(false);
    const html = await (await stranger()(pathsOf(link).page)).text();
    expect(html).not.toContain("my secret plan");
    expect(html).toContain("Alpha 2.5 · 480p");
  });

  test("a video still generating shows as not ready and serves nothing; a comparison with none Ready is refused; bad bodies are 422", async () => {
    const { id, visitor, generations, link } = await shared("share-compare-pending", { pending: 1 });
    const waiting = generations.findIndex((g) => g.state !== "SUCCESS");
    const ready = 1 - waiting;
    const visit = stranger();
    const html = await (await visit(pathsOf(link).page)).text();
    expect(html).toContain("Not ready yet");
    expect(html).toContain(`src="${pathsOf(link).video(ready)}"`);
    expect(html).not.toContain(pathsOf(link).video(waiting));
    expect((await visit(pathsOf(link).video(waiting))).status).toBe(404);
    expect((await visit(pathsOf(link).still(waiting))).status).toBe(404);
    expect((await visit(pathsOf(link).video(ready), { headers: { Range: "bytes=0-99" } })).status).toBe(206);

    expect((await share(visitor, id, { showPrompt: "yes" })).status).toBe(422);
    expect((await share(visitor, id, { showPrompt: true, owner: "me" })).status).toBe(422);
    const none = await comparison("share-compare-none", { pending: 2 });
    const refused = await share(none.visitor, none.id);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/once one of its videos is Ready/);
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: none.id } })).shareKey).toBeNull();
  });
});

describe("stopping, sharing again, deleting", () => {
  test("stop sharing: the page and every file answer 404 at once; sharing again makes a new link and the old stays dead", async () => {
    const { id, visitor, link } = await shared("share-compare-stop");
    const visit = stranger();
    expect((await visit(pathsOf(link).video(0), { headers: { Range: "bytes=0-99" } })).status).toBe(206);

    expect((await unshare(visitor, id)).status).toBe(204);
    for (const url of everyPath(link)) expect([url, (await visit(url, { headers: { Range: "bytes=0-99" } })).status]).toEqual([url, 404]);
    // Stopping twice is not an error.
    expect((await unshare(visitor, id)).status).toBe(204);
    expect(((await (await visitor(`/api/batches/${id}`)).json()) as { share: Link | null }).share).toBeNull();

    const again = (await (await share(visitor, id)).json()) as Link;
    expect(tokenOf(again)).not.toBe(tokenOf(link));
    expect((await visit(pathsOf(again).page)).status).toBe(200);
    for (const url of everyPath(link)) expect([url, (await visit(url)).status]).toEqual([url, 404]);
    // Sharing while shared replaces the link too.
    const third = (await (await share(visitor, id)).json()) as Link;
    expect((await visit(pathsOf(again).video(1))).status).toBe(404);
    expect((await visit(pathsOf(third).video(1), { headers: { Range: "bytes=0-0" } })).status).toBe(206);
  });

  test("a video deleted from the gallery leaves the page and its file and still answer 404; the others stay; all deleted, the page is 404", async () => {
    const { generations, link } = await shared("share-compare-delete");
    const visit = stranger();
    const [first, second] = generations;
    expect(await hideGeneration({ id: first!.id, ownerId: first!.ownerId })).toBe("hidden");
    expect((await visit(pathsOf(link).video(0))).status).toBe(404);
    expect((await visit(pathsOf(link).still(0))).status).toBe(404);
    const html = await (await visit(pathsOf(link).page)).text();
    expect(html).toContain("Comparison · 1 model");
    expect(html).not.toContain(`aria-label="${LABELS[first!.model]}"`);
    expect(html).not.toContain(pathsOf(link).video(0));
    // The other keeps its place (its address does not shift).
    expect(html).toContain(`src="${pathsOf(link).video(1)}"`);
    expect((await visit(pathsOf(link).video(1), { headers: { Range: "bytes=0-0" } })).status).toBe(206);

    expect(await hideGeneration({ id: second!.id, ownerId: second!.ownerId })).toBe("hidden");
    for (const url of everyPath(link)) expect([url, (await visit(url)).status]).toEqual([url, 404]);
  });

  test("copies removed by MEDIA_RETENTION_DAYS end the link: the page and every file 404, as a shared video's", async () => {
    const { reconcile } = await import("@/lib/generations/reconcile");
    const { generations, link } = await shared("share-compare-retention");
    const visit = stranger();
    expect((await visit(pathsOf(link).page)).status).toBe(200);
    const ids = generations.map((g) => g.id);
    await prisma.mediaCopy.updateMany({ where: { generationId: { in: ids } }, data: { completedAt: new Date(Date.now() - 31 * 86_400_000) } });
    await reconcile();
    await waitFor(async () => (await prisma.mediaCopy.count({ where: { generationId: { in: ids }, state: { not: "DELETED" } } })) === 0);
    for (const url of everyPath(link)) expect([url, (await visit(url)).status]).toEqual([url, 404]);
  });

  test("deleting the account kills its comparisons' links", async () => {
    const { id, generations, link } = await shared("share-compare-account");
    const userId = `share-compare-${Date.now()}`;
    await prisma.user.create({ data: { id: userId, name: "Sharer", email: `${userId}@example.test` } });
    // As the guest → account claim leaves them: the batch and its videos now belong to the account.
    await prisma.generation.updateMany({ where: { id: { in: generations.map((g) => g.id) } }, data: { ownerId: `user:${userId}` } });
    await prisma.batch.update({ where: { id }, data: { ownerId: `user:${userId}` } });
    const visit = stranger();
    expect((await visit(pathsOf(link).page)).status).toBe(200);
    // Deleting takes a session signed in within the last day.
    const session = await prisma.session.create({ data: { id: `${userId}-session`, token: `${userId}-token`, userId, expiresAt: new Date(Date.now() + 86_400_000), updatedAt: new Date() } });
    await deleteAccount({ userId, sessionId: session.id });
    for (const url of everyPath(link)) expect([url, (await visit(url)).status]).toEqual([url, 404]);
  });
});

describe("someone else", () => {
  test("cannot share or stop sharing another's comparison: 404 like a missing one, and nothing changes", async () => {
    const { id, link } = await shared("share-compare-other");
    const before = await prisma.batch.findUniqueOrThrow({ where: { id } });
    const other = app.visitor();
    const missing = await share(other, "does-not-exist");
    const foreign = await share(other, id);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
    expect((await unshare(other, id)).status).toBe(404);
    expect((await other(`/api/batches/${id}`)).status).toBe(404);
    const after = await prisma.batch.findUniqueOrThrow({ where: { id } });
    expect([after.shareKey, after.shareSeed, after.sharedAt]).toEqual([before.shareKey, before.shareSeed, before.sharedAt]);
    expect((await stranger()(pathsOf(link).page)).status).toBe(200);
  });

  test("the view's server actions refuse another's comparison too, and change nothing; the owner's work", async () => {
    const { id, visitor, link } = await shared("share-compare-actions");
    const other = app.visitor();
    const shared_ = await callAction(other, "shareBatchAction", [id, true]);
    const stopped = await callAction(other, "stopSharingBatchAction", [id]);
    expect(shared_.text).toContain("Only your own comparisons can be shared.");
    expect(stopped.text).toContain("Only your own comparisons can be shared.");
    expect(shared_.text).not.toContain("/c/");
    expect((await stranger()(pathsOf(link).page)).status).toBe(200);
    const own = await callAction(visitor, "stopSharingBatchAction", [id]);
    expect(own.text).toContain("Stopped sharing");
    expect((await stranger()(pathsOf(link).page)).status).toBe(404);
    const made = await callAction(visitor, "shareBatchAction", [id, false]);
    expect(made.text).toMatch(/\/c\/[A-Za-z0-9_-]{43}/);
  });

  test("cannot open a comparison without its exact token, a video's token opens no comparison, and a place out of range is 404", async () => {
    const { link } = await shared("share-compare-guess");
    const token = tokenOf(link);
    const flip = (c: string) => (c === "A" ? "B" : "A");
    const visit = stranger();
    for (const guess of [token.slice(0, -1) + flip(token.at(-1)!), flip(token[0]!) + token.slice(1), token.slice(0, 42), `${token}A`, "x", "..%2F..%2Fapi%2Fhealth"]) {
      expect([guess, (await visit(`/c/${guess}`)).status]).toEqual([guess, 404]);
      expect([guess, (await visit(`/c/${guess}/0/video`)).status]).toEqual([guess, 404]);
    }
    // The same token under the video's routes opens nothing: the two kinds of link are derived apart.
    expect((await visit(`/v/${token}`)).status).toBe(404);
    expect((await visit(`/v/${token}/video`)).status).toBe(404);
    for (const place of ["2", "9", "-1", "01", "x", "0x0"]) expect([place, (await visit(`/c/${token}/${place}/video`)).status]).toEqual([place, 404]);
  });
});

describe("limits", () => {
  test("the comparison's public routes count in the share links' limit per address: past it 429 with Retry-After", async () => {
    const { link } = await shared("share-compare-limit");
    const paths = pathsOf(link);
    const visit = stranger();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT; i++) statuses.push((await visit([paths.page, paths.video(0), paths.still(1)][i % 3]!, { method: "HEAD" })).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const refused = await visit(paths.video(1), { headers: { Range: "bytes=0-99" } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A shared video's link from the same address is refused too: one limit for every public route.
    expect((await visit("/v/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(429);
    expect((await stranger()(paths.video(1), { headers: { Range: "bytes=0-99" } })).status).toBe(206);
  });
});
