// Public share links through the real app, database and simulator: the owner
// shares a Ready video (a new link each time), anyone holding the link reads
// the page, the file (byte ranges, no cookie), the still and the player;
// stopping, deleting the video or the account makes all of them 404 at
// once; nobody else can share, stop or find it; and the public routes are
// limited per address. The token is never stored, only its hash.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { submitAndCopy } from "../support/media-copies";
import { callAction } from "../support/server-actions";

const MEDIA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-share-"));
const RATE_LIMIT = 30;
// One proxy in front (TRUSTED_PROXY_HOPS=1): each test's X-Forwarded-For is its own client address, so counts never meet.
const app = await startApp({
  env: { MEDIA_LOCAL_DIR: MEDIA_DIR, MEDIA_STORAGE: "local", MEDIA_COPY_RETRY_MS: "50", MEDIA_COPY_MAX_ATTEMPTS: "2", SUBMIT_RATE_LIMIT: "0", SHARE_RATE_LIMIT: String(RATE_LIMIT), SHARE_RATE_WINDOW_SECONDS: "600", TRUSTED_PROXY_HOPS: "1" },
});
const { prisma } = await import("@/lib/db");
const { hideGeneration } = await import("@/lib/generations/store");
const { deleteAccount } = await import("@/lib/viewer/delete-account");

afterAll(async () => {
  await app.close();
  fs.rmSync(MEDIA_DIR, { recursive: true, force: true });
});
beforeAll(() => app.simulator.reset(1000));

let addresses = 0;
/** A stranger with no cookie at all, from an address of its own. */
function stranger() {
  const address = `198.51.100.${++addresses}`;
  return (url: string, init: RequestInit = {}) => fetch(new URL(url, app.baseUrl), { redirect: "manual", ...init, headers: { "X-Forwarded-For": address, ...init.headers } });
}

type Link = { url: string; showPrompt: boolean; sharedAt: string };
const share = async (visitor = app.fetch, id: string, body?: unknown) =>
  visitor(`/api/generations/${id}/share`, { method: "POST", ...(body === undefined ? {} : { json: body }) });
const pathsOf = (link: Link) => {
  const page = new URL(link.url).pathname;
  return { page, video: `${page}/video`, still: `${page}/still`, embed: `${page}/embed` };
};
const tokenOf = (link: Link) => new URL(link.url).pathname.split("/")[2]!;

async function sharedVideo(label: string, prompt = "a lighthouse at dusk") {
  const { id, row } = await submitAndCopy(app, { label, prompt });
  expect(row.state).toBe("DONE");
  const response = await share(app.fetch, id);
  expect(response.status).toBe(200);
  return { id, row, link: (await response.json()) as Link };
}

describe("sharing a Ready video", () => {
  test("anyone with the link gets the page, a byte range of the file, the still and the player, with no cookie", async () => {
    const { id, row, link } = await sharedVideo("share-read");
    expect(link.url).toMatch(new RegExp(`^${app.baseUrl}/v/[A-Za-z0-9_-]{43}$`));
    expect(link.showPrompt).toBe(true);
    const paths = pathsOf(link);
    const visit = stranger();

    const page = await visit(paths.page);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`src="${paths.video}"`);
    expect(html).toContain("a lighthouse at dusk");
    // Never who made it.
    const owner = (await prisma.generation.findUniqueOrThrow({ where: { id } })).ownerId;
    expect(html).not.toContain(owner);
    expect(html).not.toContain(id);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toMatch(/no-store/);
    expect(page.headers.get("x-robots-tag")).toBe("noindex, nofollow");

    const stored = fs.readFileSync(path.join(MEDIA_DIR, row.storageKey));
    const range = await visit(paths.video, { headers: { Range: "bytes=100-1123" } });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-type")).toBe("video/mp4");
    expect(range.headers.get("content-range")).toBe(`bytes 100-1123/${stored.length}`);
    expect(range.headers.get("cache-control")).toBe("no-store");
    expect(range.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
    expect(range.headers.get("set-cookie")).toBeNull();
    expect(Buffer.from(await range.arrayBuffer()).equals(stored.subarray(100, 1124))).toBe(true);
    const whole = await visit(paths.video);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(stored)).toBe(true);

    const still = await visit(paths.still);
    expect(still.status).toBe(200);
    expect(still.headers.get("content-type")).toBe("image/jpeg");

    const embed = await visit(paths.embed);
    expect(embed.status).toBe(200);
    expect(embed.headers.get("content-type")).toBe("text/html; charset=utf-8");
    // The one page another site may frame.
    expect(embed.headers.get("x-frame-options")).toBeNull();
    expect(embed.headers.get("content-security-policy")).toMatch(/frame-ancestors \*/);
    expect(embed.headers.get("content-security-policy")).not.toMatch(/script-src/);
    expect(await embed.text()).toContain(`src="${paths.video}"`);
  });

  test.each(["Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "Twitterbot/1.0"])(
    "the served <head>, as %s gets it: this video's preview only, sized from the stored copy, and noindex",
    async (agent) => {
      const { id, link } = await sharedVideo("share-head");
      const paths = pathsOf(link);
      const html = await (await stranger()(paths.page, { headers: { "User-Agent": agent } })).text();
      const head = html.slice(0, html.indexOf("</head>"));
      const content = (attribute: string, key: string) => [...head.matchAll(new RegExp(`<meta ${attribute}="${key}" content="([^"]*)"`, "g"))].map((m) => m[1]);
      const copy = await prisma.mediaCopy.findFirstOrThrow({ where: { generationId: id } });
      expect(copy.width).toBeGreaterThan(0);
      expect(content("property", "og:video")).toEqual([`${app.baseUrl}${paths.video}`]);
      expect(content("property", "og:video:type")).toEqual(["video/mp4"]);
      expect(content("property", "og:video:width")).toEqual([String(copy.width)]);
      expect(content("property", "og:video:height")).toEqual([String(copy.height)]);
      // The layout's site-wide preview image and card are replaced, not doubled.
      expect(content("property", "og:image")).toEqual([`${app.baseUrl}${paths.still}`]);
      expect(content("name", "twitter:card")).toEqual(["player"]);
      expect(content("name", "twitter:player")).toEqual([`${app.baseUrl}${paths.embed}`]);
      expect(content("name", "robots")).toEqual(["noindex, nofollow"]);
    },
  );

  test("the database keeps the token's hash, never the token; the owner's read shows the link, another's does not", async () => {
    const { id, link } = await sharedVideo("share-hash");
    const token = tokenOf(link);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    expect(row.shareKey).toBe(createHash("sha256").update(token).digest("base64url"));
    expect(JSON.stringify(row)).not.toContain(token);
    const own = (await (await app.fetch(`/api/generations/${id}`)).json()) as { share: Link | null };
    expect(own.share).toEqual(link);
  });

  test("hiding the prompt: the page and its preview show the model only", async () => {
    const { id } = await submitAndCopy(app, { label: "share-noprompt", prompt: "my secret plan" });
    const response = await share(app.fetch, id, { showPrompt: false });
    expect(response.status).toBe(200);
    const link = (await response.json()) as Link;
    expect(link.showPrompt).toBe(false);
    const html = await (await stranger()(pathsOf(link).page)).text();
    expect(html).not.toContain("my secret plan");
    expect(html).toContain("Alpha 2.5 · 480p");
    expect((await stranger()(pathsOf(link).embed).then((r) => r.text()))).not.toContain("my secret plan");
  });

  test("a video that is not Ready, or has no stored copy, is refused with a reason; bad bodies are 422", async () => {
    const { id } = await sharedVideo("share-body");
    const bad = await share(app.fetch, id, { showPrompt: "yes" });
    expect(bad.status).toBe(422);
    const unknown = await share(app.fetch, id, { showPrompt: true, owner: "me" });
    expect(unknown.status).toBe(422);
    const failed = await submitAndCopy(app, { label: "share-failed", prompt: "never stored", media: { status: 404 } });
    expect(failed.row.state).toBe("FAILED");
    const refused = await share(app.fetch, failed.id);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/copy is stored/);
  });
});

describe("stopping, sharing again, deleting", () => {
  test("stop sharing: page, file, still and player answer 404 at once; sharing again makes a new link and the old stays dead", async () => {
    const { id, link } = await sharedVideo("share-stop");
    const paths = pathsOf(link);
    const visit = stranger();
    expect((await visit(paths.video, { headers: { Range: "bytes=0-99" } })).status).toBe(206);

    const stopped = await app.fetch(`/api/generations/${id}/share`, { method: "DELETE" });
    expect(stopped.status).toBe(204);
    for (const url of Object.values(paths)) expect([url, (await visit(url, { headers: { Range: "bytes=0-99" } })).status]).toEqual([url, 404]);
    // Stopping twice is not an error.
    expect((await app.fetch(`/api/generations/${id}/share`, { method: "DELETE" })).status).toBe(204);
    expect(((await (await app.fetch(`/api/generations/${id}`)).json()) as { share: Link | null }).share).toBeNull();

    const again = (await (await share(app.fetch, id)).json()) as Link;
    expect(tokenOf(again)).not.toBe(tokenOf(link));
    expect((await visit(pathsOf(again).page)).status).toBe(200);
    expect((await visit(paths.page)).status).toBe(404);
    // Sharing while shared replaces the link too.
    const third = (await (await share(app.fetch, id)).json()) as Link;
    expect((await visit(pathsOf(again).video)).status).toBe(404);
    expect((await visit(pathsOf(third).video, { headers: { Range: "bytes=0-0" } })).status).toBe(206);
  });

  test("deleting the video from the gallery kills its link", async () => {
    const { id, link } = await sharedVideo("share-delete");
    const owner = (await prisma.generation.findUniqueOrThrow({ where: { id } })).ownerId;
    expect(await hideGeneration({ id, ownerId: owner })).toBe("hidden");
    const visit = stranger();
    for (const url of Object.values(pathsOf(link))) expect([url, (await visit(url)).status]).toEqual([url, 404]);
    // A deleted video cannot be shared again.
    expect((await share(app.fetch, id)).status).toBe(404);
  });

  test("deleting the account kills its links", async () => {
    const { id, link } = await sharedVideo("share-account");
    const userId = `share-${Date.now()}`;
    await prisma.user.create({ data: { id: userId, name: "Sharer", email: `${userId}@example.test` } });
    // As the guest → account claim leaves it: the video now belongs to the account.
    await prisma.generation.update({ where: { id }, data: { ownerId: `user:${userId}` } });
    const visit = stranger();
    expect((await visit(pathsOf(link).page)).status).toBe(200);
    // Deleting takes a session signed in within the last day.
    const session = await prisma.session.create({ data: { id: `${userId}-session`, token: `${userId}-token`, userId, expiresAt: new Date(Date.now() + 86_400_000), updatedAt: new Date() } });
    await deleteAccount({ userId, sessionId: session.id });
    for (const url of Object.values(pathsOf(link))) expect([url, (await visit(url)).status]).toEqual([url, 404]);
  });
});

describe("someone else", () => {
  test("cannot share, stop sharing or read another's video: 404 like a missing one, and nothing changes", async () => {
    const { id, link } = await sharedVideo("share-other");
    const other = app.visitor();
    const missing = await share(other, "does-not-exist");
    const foreign = await share(other, id);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
    expect((await other(`/api/generations/${id}/share`, { method: "DELETE" })).status).toBe(404);
    expect((await other(`/api/generations/${id}`)).status).toBe(404);
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    expect(row.shareKey).toBe(createHash("sha256").update(tokenOf(link)).digest("base64url"));
    expect((await stranger()(pathsOf(link).page)).status).toBe(200);
  });

  test("the card's server actions refuse another's video too, and change nothing", async () => {
    const { id, link } = await sharedVideo("share-actions");
    const other = app.visitor();
    const shared = await callAction(other, "shareVideoAction", [id, true]);
    const stopped = await callAction(other, "stopSharingAction", [id]);
    expect(shared.text).toContain("Only your own videos can be shared.");
    expect(stopped.text).toContain("Only your own videos can be shared.");
    expect(shared.text).not.toContain("/v/");
    expect((await stranger()(pathsOf(link).page)).status).toBe(200);
    // The owner's own action works, and answers the link.
    const own = await callAction(app.fetch, "stopSharingAction", [id]);
    expect(own.text).toContain("Stopped sharing");
    expect((await stranger()(pathsOf(link).page)).status).toBe(404);
  });

  test("cannot find a shared video without its exact token", async () => {
    const { link } = await sharedVideo("share-guess");
    const token = tokenOf(link);
    const flip = (c: string) => (c === "A" ? "B" : "A");
    const visit = stranger();
    for (const guess of [token.slice(0, -1) + flip(token.at(-1)!), flip(token[0]!) + token.slice(1), token.slice(0, 42), `${token}A`, "x", "..%2F..%2Fapi%2Fhealth"]) {
      expect([guess, (await visit(`/v/${guess}`)).status]).toEqual([guess, 404]);
      expect([guess, (await visit(`/v/${guess}/video`)).status]).toEqual([guess, 404]);
    }
  });
});

describe("limits", () => {
  test("the public routes are limited per address, in the database: past the limit 429 with Retry-After; another address is unaffected", async () => {
    const { link } = await sharedVideo("share-limit");
    const paths = pathsOf(link);
    const visit = stranger();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT; i++) {
      const response = await visit([paths.page, paths.video, paths.still, paths.embed][i % 4]!, { method: "HEAD" });
      statuses.push(response.status);
    }
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const refused = await visit(paths.video, { headers: { Range: "bytes=0-99" } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await visit(paths.page)).status).toBe(429);
    expect((await stranger()(paths.video, { headers: { Range: "bytes=0-99" } })).status).toBe(206);
    // The count lives in the database, where every instance reads it.
    expect(await prisma.rateLimit.count({ where: { key: { startsWith: "share:" } } })).toBeGreaterThan(0);
  });
});
