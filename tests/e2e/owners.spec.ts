// Two visitors in two browser contexts: each sees only their own videos,
// the other's detail page is a 404, their spending caps are independent, and
// support sees everyone's in /admin.
import type { Browser } from "@playwright/test";
import { E2E_ADMIN_PASSWORD } from "../../playwright.config";
import { expect, GalleryPage, test } from "./fixtures";

async function visitor(browser: Browser) {
  const context = await browser.newContext();
  const gallery = new GalleryPage(await context.newPage());
  await gallery.goto();
  return { context, gallery };
}

test("two visitors: own cards only, the other's detail URL is 404, and admin sees both", async ({ browser, simulator }) => {
  const alice = await visitor(browser);
  const bob = await visitor(browser);
  const alicePrompt = simulator.prompt("Alice's lighthouse at dawn");
  const bobPrompt = simulator.prompt("Bob's submarine in a teacup");
  await alice.gallery.submit(alicePrompt);
  await bob.gallery.submit(bobPrompt);
  await expect(alice.gallery.badge(alicePrompt)).toHaveText("Ready");
  await expect(bob.gallery.badge(bobPrompt)).toHaveText("Ready");

  // After a reload too (server-rendered from the database, not only this tab's memory).
  for (const { gallery } of [alice, bob]) await gallery.page.reload();
  await expect(alice.gallery.card(alicePrompt)).toBeVisible();
  await expect(alice.gallery.card(bobPrompt)).toHaveCount(0);
  await expect(bob.gallery.card(bobPrompt)).toBeVisible();
  await expect(bob.gallery.card(alicePrompt)).toHaveCount(0);

  // Bob opens Alice's detail URL: the same 404 as for an id that never existed; the API agrees.
  await alice.gallery.openDetails(alicePrompt);
  const aliceUrl = alice.gallery.page.url();
  const aliceId = aliceUrl.split("/").at(-1)!;
  const response = await bob.gallery.page.goto(aliceUrl);
  expect(response?.status()).toBe(404);
  await expect(bob.gallery.page.getByText(alicePrompt)).toHaveCount(0);
  expect((await bob.context.request.get(`/api/generations/${aliceId}`)).status()).toBe(404);
  expect((await alice.context.request.get(`/api/generations/${aliceId}`)).status()).toBe(200);

  // The visitor cookie: HttpOnly, SameSite=Lax, never readable by the page's scripts.
  const [cookie] = (await alice.context.cookies()).filter((c) => c.name === "framehook_viewer");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  expect(await alice.gallery.page.evaluate(() => document.cookie)).not.toContain("framehook_viewer");

  // Support: /admin asks for the password, then shows both owners' generations.
  const admin = await browser.newContext();
  const page = await admin.newPage();
  await page.goto("/admin");
  await page.getByLabel("Admin password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("status")).toHaveText("That is not the admin password.");
  await page.getByLabel("Admin password").fill(E2E_ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Spend per owner" })).toBeVisible();
  await expect(page.getByTestId("admin-generation").filter({ hasText: alicePrompt })).toBeVisible();
  await expect(page.getByTestId("admin-generation").filter({ hasText: bobPrompt })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Delivery log" })).toBeVisible();
  // A visitor is not an admin.
  await bob.gallery.page.goto("/admin");
  await expect(bob.gallery.page.getByLabel("Admin password")).toBeVisible();
  await expect(bob.gallery.page.getByText(alicePrompt)).toHaveCount(0);

  for (const context of [alice.context, bob.context, admin]) await context.close();
});

test("spending caps are per visitor: a full cap refuses in the form and the header shows it; another visitor is unaffected", async ({
  browser,
  simulator,
}) => {
  // Kept in flight, so each counts at its estimate: 1.408 credits for 10 s at 480p, cap 6. They end
  // as failures, settled at the end, so the credits they hold return before the ledger flows run.
  await simulator.scenario({ pendingMs: 60_000, outcome: "failure", callback: { mode: "drop" } });
  const alice = await visitor(browser);
  const bob = await visitor(browser);
  // In the visitor's own credits (the cap of 6 gateway credits priced as holds are: × 1.5 ÷ 0.10), never the gateway's figures.
  await expect(alice.gallery.page.getByTestId("spend-used")).toHaveText("0");
  await expect(alice.gallery.page.getByTestId("spend-limit")).toHaveText("90 credits");
  for (let i = 1; i <= 4; i++) {
    const prompt = simulator.prompt(`Alice's kite ${i}`);
    await alice.gallery.submit(prompt, { "Duration (s)": "10" });
    await expect(alice.gallery.badge(prompt)).toHaveText("Generating");
  }
  // 4 × 1.408 gateway credits = 84.48 credits, rounded up as a hold is.
  await expect(alice.gallery.page.getByTestId("spend-used")).toHaveText("85");
  await alice.gallery.page.getByRole("banner").screenshot({ path: test.info().outputPath("header-spend.png") });

  const refused = simulator.prompt("Alice's kite 5");
  await alice.gallery.submit(refused, { "Duration (s)": "10" });
  await expect(alice.gallery.formStatus).toContainText(/You've used 85 of 90 credits today; resets at \d{4}-\d\d-\d\d 00:00 UTC/);
  await expect(alice.gallery.page.getByText("Nothing was sent to the gateway")).toBeVisible();
  // Refused before the gateway: it saw four submissions, not five.
  expect((await simulator.requests()).filter((r) => r.method === "POST")).toHaveLength(4);

  const bobPrompt = simulator.prompt("Bob's kite");
  await bob.gallery.submit(bobPrompt, { "Duration (s)": "10" });
  await expect(bob.gallery.badge(bobPrompt)).toHaveText("Generating");
  await expect(bob.gallery.page.getByTestId("spend-used")).toHaveText("22");

  await simulator.control.settle(simulator.marker);
  await alice.context.close();
  await bob.context.close();
});
