// What browsers, home screens and link previews fetch, as `next start` serves
// it: every icon, the manifest and the preview image, with the right types,
// and the <head> of each page pointing at them.
import type { Page } from "@playwright/test";
import { brand } from "../../lib/brand";
import { expect, test } from "./fixtures";

const ICO = /^image\/(x-icon|vnd\.microsoft\.icon)$/;
const PNG = /^image\/png$/;
const TYPES: [string, RegExp][] = [
  [brand.assets.favicon, ICO],
  [brand.assets.iconSvg, /^image\/svg\+xml\b/],
  [brand.assets.appleTouchIcon, PNG],
  [brand.assets.icon192, PNG],
  [brand.assets.icon512, PNG],
  [brand.assets.iconMaskable, PNG],
  [brand.previewImage.url, PNG],
  [brand.assets.manifest, /^application\/manifest\+json\b/],
];

for (const [url, type] of TYPES) {
  test(`${url} is served with its content type`, async ({ request }) => {
    const response = await request.get(url);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toMatch(type);
    expect((await response.body()).length).toBeGreaterThan(100);
  });
}

/** The addresses the page's <head> names for icons, manifest and previews. */
function headLinks(page: Page) {
  return page.evaluate(() => {
    const attr = (selector: string, name: string) => [...document.querySelectorAll(selector)].map((el) => el.getAttribute(name) ?? "");
    return {
      icons: attr('link[rel="icon"]', "href"),
      apple: attr('link[rel="apple-touch-icon"]', "href"),
      manifest: attr('link[rel="manifest"]', "href"),
      preview: [...attr('meta[property="og:image"]', "content"), ...attr('meta[name="twitter:image"]', "content")],
      card: attr('meta[name="twitter:card"]', "content"),
      description: attr('meta[name="description"]', "content"),
    };
  });
}

test("the gallery's head names the icons, the manifest and an absolute preview image, all served", async ({ page, request, baseURL }) => {
  await page.goto("/");
  await expect(page).toHaveTitle(`${brand.name} · ${brand.tagline}`);
  const head = await headLinks(page);
  expect(head.icons).toEqual(expect.arrayContaining([expect.stringMatching(/^\/favicon\.ico/), expect.stringMatching(/^\/brand\/icon\.svg/)]));
  expect(head.apple).toEqual([expect.stringMatching(/^\/apple-touch-icon\.png/)]);
  expect(head.manifest).toEqual([expect.stringMatching(/^\/manifest\.webmanifest/)]);
  // Crawlers need absolute addresses: PUBLIC_BASE_URL, which the e2e server sets to its own address.
  expect(head.preview).toEqual([`${baseURL}${brand.previewImage.url}`, `${baseURL}${brand.previewImage.url}`]);
  expect(head.card).toEqual(["summary_large_image"]);
  expect(head.description).toEqual([brand.description]);

  for (const url of [...head.icons, ...head.apple, ...head.manifest, ...head.preview]) {
    expect((await request.get(url)).status(), url).toBe(200);
  }
  const manifest = (await (await request.get(head.manifest[0]!)).json()) as { name: string; icons: { src: string; type: string }[] };
  expect(manifest.name).toBe(brand.name);
  for (const icon of manifest.icons) {
    const response = await request.get(icon.src);
    expect(response.status(), icon.src).toBe(200);
    expect(response.headers()["content-type"], icon.src).toContain(icon.type);
  }
});

test("a generation's page is titled by its prompt, shortened, and previews with the brand image", async ({ page, browser, simulator, baseURL }) => {
  const prompt = simulator.prompt(`A very long prompt about ${"a slow pan across a misty valley at dawn, ".repeat(4)}`);
  // Through the page's own context: generations belong to the visitor (its cookie) who made them.
  const created = await page.request.post("/api/generations", { data: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } } });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };

  await page.goto(`/generations/${id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(prompt);
  // Next streams a dynamic page's metadata beside its body, so the title may land just after the heading.
  await expect(page).toHaveTitle(new RegExp(`^A very long prompt about a slow pan.*… · ${brand.name}$`));
  const title = await page.title();
  expect(Array.from(title.replace(` · ${brand.name}`, "")).length).toBe(60);

  // A link preview is built from the HTML as served, before any script runs: read it so. (The live
  // page refreshes itself while the task runs, and React may keep a refresh's <meta> beside the old.)
  const crawler = await browser.newContext({ baseURL, javaScriptEnabled: false, storageState: await page.context().storageState() });
  try {
    const served = await crawler.newPage();
    await served.goto(`/generations/${id}`);
    await expect(served).toHaveTitle(title);
    const head = await headLinks(served);
    expect(head.description).toEqual([expect.stringMatching(/^(Submitting|Generating|Ready) · /)]);
    expect(head.preview).toEqual([`${baseURL}${brand.previewImage.url}`, `${baseURL}${brand.previewImage.url}`]);
  } finally {
    await crawler.close();
  }
});

test("a missing generation says so in its title, on the site's own 404 page", async ({ page, browserErrors }) => {
  browserErrors.allow({ url: /\/generations\/does-not-exist$/, status: 404, reason: "this test opens a missing generation" });
  const response = await page.goto("/generations/does-not-exist");
  expect(response?.status()).toBe(404);
  await expect(page).toHaveTitle(`Generation not found · ${brand.name}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Nothing here");
  await page.getByRole("link", { name: "← Gallery" }).click();
  await expect(page).toHaveURL(/\/$/);
});
