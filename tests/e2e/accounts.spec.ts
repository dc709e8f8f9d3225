// Accounts as a person uses them: a guest makes a video, signs in with the
// link emailed to them (a real SMTP server on loopback receives it), keeps
// what they made, and their other tab follows; then adds a passkey (Chromium's
// virtual authenticator), signs out, and signs back in with it. Their credits
// go with them: the account shows what the guest had left.
import type { Page } from "@playwright/test";
import { E2E_MAILBOX_URL } from "../../playwright.config";
import { expect, GalleryPage, test } from "./fixtures";

/** The sign-in link last emailed to `email`, once it has arrived. */
async function linkFor(email: string): Promise<string> {
  let link: string | null = null;
  await expect
    .poll(async () => {
      const inbox = (await (await fetch(E2E_MAILBOX_URL)).json()) as { to: string[]; url: string | null }[];
      link = inbox.filter((m) => m.to.includes(email)).at(-1)?.url ?? null;
      return link;
    })
    .toBeTruthy();
  return link!;
}

async function askForLink(page: Page, email: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
  await expect(page.getByText(email).first()).toBeVisible();
}

test("a guest signs in with an emailed link and keeps their video; their other tab follows", async ({ gallery, simulator, page, context }, testInfo) => {
  const prompt = simulator.prompt("a lighthouse at dawn");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const otherTab = await context.newPage();
  await otherTab.goto("/");
  await expect(otherTab.getByRole("link", { name: "Sign in" })).toBeVisible();

  await page.getByRole("link", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("sign-in.png"), fullPage: true });
  const email = `lighthouse-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  await askForLink(page, email);

  await page.goto(await linkFor(email));
  await expect(page).toHaveURL(/\/welcome$/);
  await expect(page.getByRole("heading", { name: "Keep the 1 video made in this browser?" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("welcome.png"), fullPage: true });
  await page.getByRole("button", { name: "Keep them" }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect(page.getByRole("link", { name: "Account" })).toBeVisible();
  // The tab opened as a guest reloaded itself: it shows the account, and the kept video.
  await expect(otherTab.getByRole("link", { name: "Account" })).toBeVisible();
  await expect(otherTab.getByRole("article", { name: new RegExp(simulator.marker) })).toBeVisible();

  await page.getByRole("link", { name: "Account" }).click();
  await expect(page.getByText(email).first()).toBeVisible();
  await expect(page.getByText("This browser")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("account.png"), fullPage: true });
});

test("an account's balance follows the guest → account claim: the header shows the guest's credits, not a fresh account's", async ({ gallery, simulator, page, browser }, testInfo) => {
  await gallery.goto();
  const welcome = await gallery.balanceValue();
  const prompt = simulator.prompt("a windmill turning");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  // 5 s of the default 480p model: 11 credits captured, so this guest has less than any new owner's welcome.
  await expect(gallery.card(prompt).getByTestId("generation-credits")).toHaveText("11 credits");
  await expect.poll(() => gallery.balanceValue()).toBe(welcome - 11);
  const guest = welcome - 11;

  const email = `windmill-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  await page.getByRole("link", { name: "Sign in" }).click();
  await askForLink(page, email);
  await page.goto(await linkFor(email));
  await expect(page.getByRole("heading", { name: "Keep the 1 video made in this browser?" })).toBeVisible();
  await page.getByRole("button", { name: "Keep them" }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: "Account" })).toBeVisible();
  // The account has the guest's credits: neither a second welcome nor the guest's left behind.
  await expect.poll(() => gallery.balanceValue()).toBe(guest);
  await expect(gallery.card(prompt).getByTestId("generation-credits")).toHaveText("11 credits");
  await page.locator("header").screenshot({ path: testInfo.outputPath("header-after-claim.png") });
  await page.reload();
  expect(await gallery.balanceValue()).toBe(guest);

  // A fresh account, in a browser of its own, starts from the welcome: the figure above is the guest's.
  const fresh = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const other = await fresh.newPage();
  await other.goto("/sign-in");
  const freshEmail = `fresh-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  await askForLink(other, freshEmail);
  await other.goto(await linkFor(freshEmail));
  await other.goto("/");
  await expect(other.getByRole("link", { name: "Account" })).toBeVisible();
  await expect.poll(() => new GalleryPage(other).balanceValue()).toBe(welcome);
  await fresh.close();
});

test("a signed-in person adds a passkey, signs out, and signs back in with it", async ({ browser, simulator }, testInfo) => {
  // Passkeys belong to a domain: browsers refuse an IP address, so this flow runs at localhost.
  const base = new URL(test.info().project.use.baseURL!);
  base.hostname = "localhost";
  const context = await browser.newContext({ baseURL: base.origin });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });

  const email = `passkey-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  await page.goto("/sign-in");
  await askForLink(page, email);
  const link = new URL(await linkFor(email));
  link.hostname = "localhost";
  await page.goto(link.href);
  await page.goto("/account");
  await expect(page.getByRole("heading", { name: "Account", exact: true })).toBeVisible();
  await expect(page.getByText("No passkeys yet")).toBeVisible();

  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByText(/^Passkey on /)).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("account-passkey.png"), fullPage: true });

  await page.getByRole("button", { name: "Sign out", exact: true }).first().click();
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();

  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("link", { name: "Account" })).toBeVisible();
  await page.goto("/account");
  await expect(page.getByText(email).first()).toBeVisible();

  await page.getByRole("button", { name: /^Remove / }).click();
  await expect(page.getByText("No passkeys yet")).toBeVisible();
  await context.close();
});
