// Accounts as a person uses them: a guest makes a video, signs in with the
// link emailed to them (a real SMTP server on loopback receives it), keeps
// what they made, and their other tab follows; then adds a passkey (Chromium's
// virtual authenticator), signs out, and signs back in with it. Keeping costs
// the account none of its own credits, and signing out drops its figures.
import type { Page } from "@playwright/test";
import { E2E_MAILBOX_URL } from "../../playwright.config";
import { executeInAppDatabase } from "./database";
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

/** Opens an emailed link and presses its button, as the person does (opening it alone signs nobody in). */
async function openLink(page: Page, link: string, email: string) {
  await page.goto(link);
  await page.getByRole("button", { name: `Sign in as ${email}` }).click();
  await expect(page).not.toHaveURL(/\/sign-in\/link/);
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
  const link = await linkFor(email);

  // A mail scanner opens the link first, running its JavaScript, in a browser of its own: it signs nobody in.
  const scanner = await context.browser()!.newContext();
  const scanned = await scanner.newPage();
  await scanned.goto(link, { waitUntil: "networkidle" });
  await expect(scanned.getByRole("button", { name: `Sign in as ${email}` })).toBeVisible();
  await expect(scanned.getByText("This link was asked for in another browser")).toBeVisible();
  await scanner.close();

  await page.goto(link);
  await expect(page.getByText("This link was asked for in another browser")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("sign-in-link.png"), fullPage: true });
  await page.getByRole("button", { name: `Sign in as ${email}` }).click();
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

test("keeping a guest's video costs the account nothing of its own, the prompt says so before the click, and signing out drops the account's figures", async ({ gallery, simulator, page }, testInfo) => {
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
  await openLink(page, await linkFor(email), email);
  await expect(page.getByRole("heading", { name: "Keep the 1 video made in this browser?" })).toBeVisible();
  // The rule, before the click: the guest's unspent welcome is not added (an account is welcomed once), nothing of the account's is taken.
  await expect(page.getByTestId("claim-credits")).toHaveText(
    `No credits come with them: the ${guest.toLocaleString("en-US")} credits left of the welcome it got as a guest are not added, as an account is welcomed once. Your account’s own credits stay as they are.`,
  );
  await page.screenshot({ path: testInfo.outputPath("welcome-credits-rule.png"), fullPage: true });
  await page.getByRole("button", { name: "Keep them" }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: "Account" })).toBeVisible();
  // The account keeps its own welcome, as "Not now" would have left it, with the guest's video.
  await expect.poll(() => gallery.balanceValue()).toBe(welcome);
  await expect(gallery.card(prompt).getByTestId("generation-credits")).toHaveText("11 credits");
  await page.locator("header").screenshot({ path: testInfo.outputPath("header-after-claim.png") });
  await page.reload();
  expect(await gallery.balanceValue()).toBe(welcome);

  // The history names the row for what it is.
  await page.goto("/credits");
  await expect(page.getByText("Kept a guest’s work: its unspent welcome credits are not added again (an account is welcomed once)")).toBeVisible();
  await expect(page.getByText("Adjusted by the operator")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("credit-history-after-claim.png"), fullPage: true });

  // The account spends, so that its figure differs from a fresh guest's.
  await gallery.goto();
  const spent = simulator.prompt("a mill pond");
  await gallery.submit(spent);
  await expect(gallery.badge(spent)).toHaveText("Ready");
  await expect.poll(() => gallery.balanceValue()).toBe(welcome - 11);

  // Signing out (a server action, no reload) drops the account's figures: the header shows the fresh guest's welcome.
  await page.goto("/account");
  await expect(gallery.balance).toHaveText((welcome - 11).toLocaleString("en-US"));
  await page.getByRole("button", { name: "Sign out", exact: true }).first().click();
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();
  await expect(gallery.balance).toHaveText(welcome.toLocaleString("en-US"));
  await page.locator("header").screenshot({ path: testInfo.outputPath("header-after-sign-out.png") });
});

test("Eve's own link, opened and pressed in a victim's browser, signs the victim in as Eve and moves none of their work", async ({ gallery, simulator, page, browser }, testInfo) => {
  const prompt = simulator.prompt("the victim's harbour at night");
  await gallery.goto();
  const welcome = await gallery.balanceValue();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");

  // Eve asks for a link to her own address in her browser, then gets the victim to open it.
  const eveContext = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const eve = await eveContext.newPage();
  await eve.goto("/sign-in");
  const eveEmail = `eve-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  await askForLink(eve, eveEmail);
  const link = await linkFor(eveEmail);

  await page.goto(link);
  await expect(page.getByText("This link was asked for in another browser")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("sign-in-link-elsewhere.png"), fullPage: true });
  await expect.poll(() => gallery.balanceValue()).toBe(welcome - 11);
  await page.getByRole("button", { name: `Sign in as ${eveEmail}` }).click();
  await expect(page).toHaveURL(/\/welcome$/);
  // The header shows Eve's new account's credits (its welcome), not the victim guest's, without a reload.
  await expect(gallery.balance).toHaveText(welcome.toLocaleString("en-US"));
  await expect(page.getByRole("heading", { name: "Nothing from this browser was moved" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Keep them" })).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("welcome-elsewhere.png"), fullPage: true });
  await page.getByRole("link", { name: "Continue" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: "Account", exact: true })).toBeVisible();
  await expect(gallery.card(prompt)).toHaveCount(0);

  // Eve, signed in with a link of her own in her own browser, finds nothing of the victim's.
  await eve.goto("/sign-in");
  await askForLink(eve, eveEmail);
  await openLink(eve, await linkFor(eveEmail), eveEmail);
  await eve.goto("/");
  await expect(eve.getByRole("link", { name: "Account" })).toBeVisible();
  await expect(new GalleryPage(eve).card(prompt)).toHaveCount(0);
  await eveContext.close();
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
  await openLink(page, link.href, email);
  await page.goto("/account");
  await expect(page.getByRole("heading", { name: "Account", exact: true })).toBeVisible();
  await expect(page.getByText("No passkeys yet")).toBeVisible();

  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByText(/^Passkey on /)).toBeVisible();
  // One date format on the page: the passkey's and the session's, in the same words as the server renders them.
  const stamp = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/;
  await expect(page.getByText(/· added /)).toHaveText(new RegExp(`· added ${stamp.source}$`));
  await expect(page.getByText(/· since /).first()).toHaveText(new RegExp(`· since ${stamp.source}$`));
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

test("deleting an account needs a sign-in from the last day: an older session is asked to sign in again first, then deletes", async ({ page, simulator }, testInfo) => {
  const email = `leaver-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;
  await page.goto("/sign-in");
  await askForLink(page, email);
  const first = await linkFor(email);
  await openLink(page, first, email);
  await page.goto("/account");
  await expect(page.getByRole("button", { name: "Delete my account" })).toBeVisible();

  // The same session, signed in two days ago (as if the browser stayed signed in).
  await executeInAppDatabase(`UPDATE "Session" SET "createdAt" = ? WHERE "userId" = (SELECT "id" FROM "User" WHERE "email" = ?)`, [new Date(Date.now() - 2 * 86_400_000), email]);
  await page.reload();
  await expect(page.getByTestId("delete-needs-sign-in")).toHaveText(
    "Deleting your account cannot be undone, so it needs a sign-in from the last day, and this browser signed in earlier. Sign in again with an email link or a passkey, then come back here.",
  );
  await expect(page.getByRole("button", { name: "Delete my account" })).toHaveCount(0);
  await page.getByTestId("delete-needs-sign-in").screenshot({ path: testInfo.outputPath("delete-needs-sign-in.png") });
  await page.screenshot({ path: testInfo.outputPath("account-stale-session.png"), fullPage: true });

  await page.getByRole("link", { name: "Sign in again" }).click();
  await expect(page).toHaveURL(/\/sign-in\?again$/);
  await askForLink(page, email);
  let second = first;
  await expect.poll(async () => (second = await linkFor(email))).not.toBe(first);
  await openLink(page, second, email);
  await page.goto("/account");
  await page.getByLabel(`Type ${email} to confirm`).fill(email);
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL(/\/\?deleted=1$/);
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();
});
