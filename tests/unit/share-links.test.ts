// A shared video's link preview, rendered as the page renders it, read the
// way Discord, Slack and X read a page's <meta> tags; its player page; a
// shared comparison's preview; and the link's token (size, derivation,
// constant-time check, a comparison's apart from a video's).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { PreviewTags } from "@/app/_components/preview-tags";
import { embedPageHtml } from "@/lib/sharing/embed-page";
import { comparisonPreviewTags, sharePreviewTags } from "@/lib/sharing/preview-tags";
import type { SharedComparison } from "@/lib/sharing/shared-comparison";
import type { SharedVideo } from "@/lib/sharing/shared-video";
import { isShareToken, newShareSeed, shareKeyOf, shareTokenFor, verifyShareToken } from "@/lib/sharing/share-token";

const BASE = "https://videos.example.com/v/tok";
const video = (over: Partial<SharedVideo> = {}, size: Partial<SharedVideo["video"]> = {}): SharedVideo => ({
  model: { id: "alpha-2.5-text-to-video", label: "Alpha 2.5" },
  prompt: "A lighthouse at dusk",
  video: { contentType: "video/mp4", size: 977_261, width: 854, height: 480, hasStill: true, ...size },
  urls: { page: BASE, video: `${BASE}/video`, still: `${BASE}/still`, embed: `${BASE}/embed` },
  paths: { page: "/v/tok", video: "/v/tok/video", still: "/v/tok/still", embed: "/v/tok/embed" },
  sharedAt: "2026-11-28T12:00:00.000Z",
  ...over,
});

/** The head's tags as a link unfurler reads them: every value of each property or name, HTML entities decoded. */
function readTags(html: string): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const [, attributes] of html.matchAll(/<meta\s([^>]*)\/?>/g)) {
    const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(attributes!)?.[1];
    const key = attr("property") ?? attr("name");
    const content = attr("content");
    if (!key || content === undefined) continue;
    const decoded = content.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    tags.set(key, [...(tags.get(key) ?? []), decoded]);
  }
  return tags;
}

const renderHead = (v: SharedVideo) => renderToStaticMarkup(createElement(PreviewTags, { tags: sharePreviewTags(v, { siteName: "Framehook" }) }));
const one = (tags: Map<string, string[]>, key: string) => {
  expect(tags.get(key), key).toHaveLength(1);
  return tags.get(key)![0]!;
};
const isAbsoluteHttps = (url: string) => new URL(url).protocol === "https:";

describe("what each client reads from the rendered head", () => {
  const tags = readTags(renderHead(video()));

  test.each([
    // Discord plays og:video inline only when it is the file itself, typed and sized.
    ["Discord", "og:video", `${BASE}/video`],
    ["Discord", "og:video:secure_url", `${BASE}/video`],
    ["Discord", "og:video:type", "video/mp4"],
    ["Discord", "og:video:width", "854"],
    ["Discord", "og:video:height", "480"],
    ["Discord", "og:image", `${BASE}/still`],
    // Slack's unfurl: title, description, image, site.
    ["Slack", "og:title", "A lighthouse at dusk"],
    ["Slack", "og:description", "Alpha 2.5 · shared from Framehook"],
    ["Slack", "og:site_name", "Framehook"],
    ["Slack", "og:url", BASE],
    // X's player card frames the player page, at the video's size.
    ["X", "twitter:card", "player"],
    ["X", "twitter:player", `${BASE}/embed`],
    ["X", "twitter:player:width", "854"],
    ["X", "twitter:player:height", "480"],
    ["X", "twitter:player:stream", `${BASE}/video`],
    ["X", "twitter:image", `${BASE}/still`],
    ["X", "twitter:title", "A lighthouse at dusk"],
  ])("%s reads %s = %s, exactly once", (_client, key, value) => {
    expect(one(tags, key)).toBe(value);
  });

  test("every URL a crawler fetches is absolute (https here), and og tags use property=, twitter tags name=", () => {
    for (const key of ["og:video", "og:image", "og:url", "twitter:player", "twitter:image", "twitter:player:stream"]) expect(isAbsoluteHttps(one(tags, key)), key).toBe(true);
    const html = renderHead(video());
    expect(html).toMatch(/<meta property="og:video" content=/);
    expect(html).toMatch(/<meta name="twitter:card" content="player"\/?>/);
    expect(html).not.toMatch(/name="og:/);
  });

  test("with the prompt hidden: a title that names the model only", () => {
    const hidden = readTags(renderHead(video({ prompt: null })));
    expect(one(hidden, "og:title")).toBe("A video made with Alpha 2.5");
    expect(renderHead(video({ prompt: null }))).not.toContain("lighthouse");
  });

  test("a hostile prompt stays text: quotes and markup are escaped in attributes, and a long one is cut", () => {
    const prompt = `"><script>alert(1)</script> & ${"very ".repeat(30)}long`;
    const html = renderHead(video({ prompt }));
    expect(html).not.toContain("<script>");
    const title = one(readTags(html), "og:title");
    expect(title.startsWith(`"><script>alert(1)</script> &`)).toBe(true);
    expect(Array.from(title).length).toBeLessThanOrEqual(60);
  });

  test("a copy whose size is unknown is previewed 16:9; one with no still has no image tags; over http no secure_url", () => {
    const unknown = readTags(renderHead(video({}, { width: null, height: null })));
    expect([one(unknown, "og:video:width"), one(unknown, "og:video:height")]).toEqual(["1280", "720"]);
    const noStill = readTags(renderHead(video({}, { hasStill: false })));
    expect(noStill.has("og:image")).toBe(false);
    expect(noStill.has("twitter:image")).toBe(false);
    const http = video({ urls: { page: "http://localhost:3000/v/t", video: "http://localhost:3000/v/t/video", still: "http://localhost:3000/v/t/still", embed: "http://localhost:3000/v/t/embed" } });
    expect(readTags(renderHead(http)).has("og:video:secure_url")).toBe(false);
  });
});

describe("the player page", () => {
  test("plays the file with the still as poster, no script, the prompt escaped", () => {
    const html = embedPageHtml(video({ prompt: `a "quoted" <b>bold</b> prompt` }), { siteName: "Framehook" });
    expect(html).toContain('src="/v/tok/video"');
    expect(html).toContain('poster="/v/tok/still"');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt;");
  });
});

describe("the token", () => {
  const secret = "a-test-secret-of-enough-length";
  test("256 bits (43 base64url characters) from a 128-bit seed; a new seed, a new token", () => {
    const seed = newShareSeed();
    expect(Buffer.from(seed, "base64url")).toHaveLength(16);
    const token = shareTokenFor({ generationId: "g1", seed }, secret);
    expect(isShareToken(token)).toBe(true);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(shareTokenFor({ generationId: "g1", seed: newShareSeed() }, secret)).not.toBe(token);
    expect(shareTokenFor({ generationId: "g1", seed }, secret)).toBe(token);
    expect(shareKeyOf(token)).not.toContain(token);
  });

  test.each([
    ["the token itself", (t: string) => t, true],
    ["one character changed", (t: string) => t.slice(0, -1) + (t.endsWith("A") ? "B" : "A"), false],
    ["cut short", (t: string) => t.slice(0, 42), false],
    ["lengthened", (t: string) => `${t}A`, false],
    ["empty", () => "", false],
  ])("verify: %s → %s", (_label, change, expected) => {
    const seed = newShareSeed();
    const token = shareTokenFor({ generationId: "g1", seed }, secret);
    expect(verifyShareToken(change(token), { generationId: "g1", seed }, secret)).toBe(expected);
  });

  test("a comparison's token is not its id's video token: the two kinds of link never open each other", () => {
    const seed = newShareSeed();
    const batchToken = shareTokenFor({ batchId: "x1", seed }, secret);
    expect(isShareToken(batchToken)).toBe(true);
    expect(batchToken).not.toBe(shareTokenFor({ generationId: "x1", seed }, secret));
    expect(verifyShareToken(batchToken, { batchId: "x1", seed }, secret)).toBe(true);
    expect(verifyShareToken(batchToken, { generationId: "x1", seed }, secret)).toBe(false);
    expect(verifyShareToken(batchToken, { batchId: "x2", seed }, secret)).toBe(false);
  });

  test("another generation's seed, another secret, or no seed (not shared) never verify", () => {
    const seed = newShareSeed();
    const token = shareTokenFor({ generationId: "g1", seed }, secret);
    expect(verifyShareToken(token, { generationId: "g2", seed }, secret)).toBe(false);
    expect(verifyShareToken(token, { generationId: "g1", seed }, `${secret}-rotated`)).toBe(false);
    expect(verifyShareToken(token, { generationId: "g1", seed: null }, secret)).toBe(false);
  });
});

describe("a shared comparison's preview", () => {
  const PAGE = "https://videos.example.com/c/tok";
  const column = (position: number, label: string, over: Partial<SharedComparison["videos"][number]> = {}): SharedComparison["videos"][number] => ({
    position,
    model: { id: label, label },
    status: "ready",
    video: { contentType: "video/mp4", size: 1000, width: 854, height: 480, hasStill: true },
    paths: { video: `/c/tok/${position}/video`, still: `/c/tok/${position}/still` },
    picked: false,
    ...over,
  });
  const comparison = (over: Partial<SharedComparison> = {}): SharedComparison => ({
    prompt: "A kite over the dunes",
    videos: [column(0, "Alpha 2.5 · 480p"), column(1, "Alpha 2.5")],
    urls: { page: PAGE, image: `${PAGE}/1/still` },
    paths: { page: "/c/tok" },
    sharedAt: "2026-11-28T12:00:00.000Z",
    ...over,
  });
  const render = (value: SharedComparison) => readTags(renderToStaticMarkup(createElement(PreviewTags, { tags: comparisonPreviewTags(value, { siteName: "Framehook" }) })));

  test("a summary card with the still it was given, every model named, and no og:video (one file is not the comparison)", () => {
    const tags = render(comparison());
    expect(tags.get("og:title")).toEqual(["A kite over the dunes"]);
    expect(tags.get("og:description")).toEqual(["Alpha 2.5 · 480p, Alpha 2.5: one prompt, side by side · shared from Framehook"]);
    expect(tags.get("og:image")).toEqual([`${PAGE}/1/still`]);
    expect(tags.get("og:url")).toEqual([PAGE]);
    expect(tags.get("twitter:card")).toEqual(["summary_large_image"]);
    expect(tags.has("og:video")).toBe(false);
    expect(tags.has("twitter:player")).toBe(false);
  });

  test("the prompt hidden and no still yet: the models only, and a plain summary card", () => {
    const tags = render(comparison({ prompt: null, urls: { page: PAGE, image: null } }));
    expect(tags.get("og:title")).toEqual(["2 models compared"]);
    expect(tags.has("og:image")).toBe(false);
    expect(tags.get("twitter:card")).toEqual(["summary"]);
    expect([...tags.values()].flat().join(" ")).not.toContain("kite");
  });
});
