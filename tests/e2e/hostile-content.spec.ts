// Hostile content in the browser: markup typed into a prompt shows as text and
// never runs; result URLs with other schemes than http(s), even if one reached
// the database, never become a link or a video source.
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { executeInAppDatabase } from "./database";
import { expect, test } from "./fixtures";

const PAYLOAD = `<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2;alert(2)</script><a href="javascript:alert(3)">click</a>`;
const HOSTILE_URLS = [
  "javascript:alert(document.domain)",
  " JaVaScRiPt:alert(1)",
  "data:video/mp4;base64,AAAAIGZ0eXBpc29t",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "//evil.example/clip.mp4",
];

/** Fails the test on any dialog and records whether a payload ran. */
function guard(page: Page) {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return {
    dialogs,
    pwned: () => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null),
  };
}

/** Every link, media and frame address on the page that is not http(s) or same-origin relative. */
function unsafeAddresses(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("a[href], video[src], source[src], img[src], iframe[src], embed[src], object[data]")]
      .map((el) => `${el.tagName.toLowerCase()} ${el.getAttribute("href") ?? el.getAttribute("src") ?? el.getAttribute("data")}`)
      .filter((entry) => /^\S+\s+\s*(?:javascript|data|vbscript|file):|^\S+\s+\/\//i.test(entry)),
  );
}

test("script and markup in a prompt are shown as text and never run", async ({ page, gallery, simulator }) => {
  const watch = guard(page);
  const prompt = simulator.prompt(PAYLOAD);
  await gallery.goto();
  await gallery.submit(prompt);
  const card = gallery.card(simulator.marker);
  await expect(card.getByTestId("state-badge")).toHaveText("Ready");
  await expect(card).toContainText(`<img src=x onerror="window.__pwned=1;alert(1)">`);
  await expect(card).toContainText("<script>window.__pwned=2;alert(2)</script>");
  expect(await page.locator('img[src="x"]').count()).toBe(0);

  await card.getByRole("link", { name: /^Details/ }).click();
  await expect(page).toHaveURL(/\/generations\//);
  await expect(page.getByText(`<img src=x onerror="window.__pwned=1;alert(1)">`, { exact: false }).first()).toBeVisible();
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await unsafeAddresses(page)).toEqual([]);
  expect(watch.dialogs).toEqual([]);
  expect(await watch.pwned()).toBeNull();
});

test("result URLs of other schemes in the database are never a link or a video source", async ({ page, gallery, simulator }) => {
  const watch = guard(page);
  // This browser's visitor, the owner of the row below (galleries are per owner).
  await gallery.goto();
  const viewer = (await page.context().cookies()).find((c) => c.name === "framehook_viewer")!;
  const ownerId = viewer.value.split(".")[0]!;
  // Written straight into the app's database, as a bug or a hostile gateway might have left it.
  const id = `hostile${randomUUID().replaceAll("-", "").slice(0, 18)}`;
  const now = new Date();
  await executeInAppDatabase(
    `INSERT INTO "Generation" ("id", "ownerId", "taskId", "model", "state", "prompt", "resultUrls", "creditsConsumed", "createdAt", "updatedAt", "completedAt")
     VALUES (?, ?, ?, 'alpha-2.5-text-to-video-480p', 'SUCCESS', ?, ?, 0.5, ?, ?, ?)`,
    [id, ownerId, `task_${id}`, simulator.prompt("hostile result"), JSON.stringify(HOSTILE_URLS), now, now, now],
  );

  const api = await page.request.get(`/api/generations/${id}`);
  expect(((await api.json()) as { resultUrls: string[] }).resultUrls).toEqual([]);

  await gallery.goto();
  const card = gallery.card(simulator.marker);
  await expect(card).toBeVisible();
  expect(await card.locator("video").count()).toBe(0);
  expect(await unsafeAddresses(page)).toEqual([]);

  await page.goto(`/generations/${id}`);
  await expect(page.getByText(simulator.marker).first()).toBeVisible();
  expect(await page.locator("video").count()).toBe(0);
  expect(await unsafeAddresses(page)).toEqual([]);
  const html = await page.content();
  for (const url of HOSTILE_URLS) expect(html).not.toContain(`="${url.trim()}"`);
  expect(watch.dialogs).toEqual([]);
});
