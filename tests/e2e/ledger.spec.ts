// Flows that check credits: the visitor's own in the header (the kit's
// ledger: a submission holds its estimate, a success captures it, a failure
// gives it back), and the operator's balance at the gateway, read from the
// simulator. They run in the "ledger" project, after every other flow and one
// at a time, because the gateway's balance is shared by everything that runs
// against the simulator. Each also checks what the app itself recorded: the
// card's credits (the visitor's, never the gateway's figure) and the visitor's
// spend, which a double apply would double.
import type { Page } from "@playwright/test";
import { E2E_ADMIN_PASSWORD, E2E_GATEWAY_API_KEY } from "../../playwright.config";
import { executeInAppDatabase } from "./database";
import { expect, test } from "./fixtures";

test.describe.configure({ mode: "serial" });

// 5 s of the default 480p model: $0.704 at the gateway, 11 credits at the default markup.
const HOLD = 11;

// The premise of a balance check: nothing else is pending on the gateway, so
// nothing else can be charged meanwhile (every flow settles what it leaves).
test.beforeEach(async ({ simulator }) => {
  const pending = (await simulator.control.tasks("")).filter((task) => task.state === "PENDING");
  expect(pending.map((task) => task.prompt), "tasks other flows left pending").toEqual([]);
});

/** The credits this visitor has spent in the current window, as the app records them. */
async function spent(page: Page): Promise<number> {
  const response = await page.request.get("/api/spend");
  expect(response.status()).toBe(200);
  return ((await response.json()) as { spend: { used: number } }).spend.used;
}

test("duplicate callbacks: one card, the hold captured once, the gateway charged once; the card shows the hold, then the capture", async ({ gallery, simulator }) => {
  // Pending until the test settles it, so that the held card is surely seen.
  await simulator.scenario({ pendingMs: 600_000, callback: { duplicates: 4 } });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const gatewayBefore = await simulator.control.credits(E2E_GATEWAY_API_KEY);
  const spentBefore = await spent(gallery.page);
  const prompt = simulator.prompt("Rain on a tin roof");
  await gallery.submit(prompt);
  // Held from the submission on, shown as held until the outcome: in the header and on the card.
  const credits = gallery.card(prompt).getByTestId("generation-credits");
  await expect(credits).toHaveText(`Holds ${HOLD} credits`);
  await expect(gallery.badge(prompt)).toHaveText("Generating");
  await expect.poll(() => gallery.balanceValue()).toBe(before - HOLD);
  await gallery.card(prompt).screenshot({ path: test.info().outputPath("card-held.png") });
  // The detail page, in another tab, says what is held too.
  const detail = await gallery.page.context().newPage();
  await detail.goto((await gallery.card(prompt).getByRole("link", { name: /Details/ }).getAttribute("href"))!);
  await expect(detail.getByTestId("detail-credits")).toHaveText(`${HOLD} credits held · charged only on success, never more`);
  await detail.screenshot({ path: test.info().outputPath("detail-held.png"), fullPage: true });
  await detail.close();

  expect((await simulator.control.settle(simulator.marker)).settled).toBe(1);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect.poll(async () => (await simulator.callbacks()).length).toBe(5);
  await expect(gallery.card(prompt)).toHaveCount(1);
  // The capture, in the visitor's credits (the gateway's 0.704 is the operator's cost), from the live event.
  await expect(credits).toHaveText(`${HOLD} credits`);
  await expect(credits).toHaveAttribute("data-status", "captured");
  await expect(gallery.card(prompt)).not.toContainText("0.704");
  await gallery.card(prompt).screenshot({ path: test.info().outputPath("card-captured.png") });
  await expect(gallery.page.getByTestId("credits-held")).toHaveCount(0);
  expect(await gallery.balanceValue()).toBe(before - HOLD);
  expect(await simulator.control.credits(E2E_GATEWAY_API_KEY)).toBeCloseTo(gatewayBefore - 0.704, 4);
  expect(await spent(gallery.page)).toBeCloseTo(spentBefore + 0.704, 4);
  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBe(before - HOLD);
  await expect(credits).toHaveText(`${HOLD} credits`);

  // The detail page says the same.
  await gallery.openDetails(prompt);
  await expect(gallery.page.getByTestId("detail-credits")).toHaveText(`${HOLD} credits`);
  await expect(gallery.page.getByRole("main")).not.toContainText("0.704 credits");
  await gallery.page.screenshot({ path: test.info().outputPath("detail-captured.png"), fullPage: true });
  await gallery.goto();

  // The history on /credits: one hold, settled by one capture, newest first.
  await gallery.page.getByTestId("credits-balance").click();
  await expect(gallery.page).toHaveURL(/\/credits$/);
  const rows = gallery.page.getByTestId("credit-history-row");
  await expect(rows).toHaveText([/The video is ready: it cost 11 credits\s*0$/, /Held for a video\s*-11$/, /Welcome credits\s*\+1,000,000$/]);
  await gallery.page.getByRole("region", { name: "History" }).screenshot({ path: test.info().outputPath("credit-history.png") });
});

test("a failed generation: the reason, Not charged, and the hold given back", async ({ gallery, simulator }) => {
  await simulator.scenario({ outcome: "failure", failMsg: "The model could not render this scene." });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const gatewayBefore = await simulator.control.credits(E2E_GATEWAY_API_KEY);
  const spentBefore = await spent(gallery.page);
  const prompt = simulator.prompt("An impossible staircase");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Failed");
  await expect(gallery.card(prompt)).toContainText("The model could not render this scene. Not charged.");
  // Said once: the card has no charge line of its own for a failure.
  await expect(gallery.card(prompt).getByTestId("generation-credits")).toHaveCount(0);
  await expect.poll(() => gallery.balanceValue()).toBe(before);
  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBe(before);
  expect(await simulator.control.credits(E2E_GATEWAY_API_KEY)).toBe(gatewayBefore);
  expect(await spent(gallery.page)).toBe(spentBefore);
  await gallery.openDetails(prompt);
  await expect(gallery.page.getByTestId("detail-credits")).toHaveText(`Not charged · ${HOLD} credits held, given back`);
});

test("the gateway's own 402 (the operator's balance ran out): a clear message, a Not submitted card, the hold given back", async ({ gallery, simulator }) => {
  await simulator.scenario({ submitStatus: 402 });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const prompt = simulator.prompt("A very long epic");
  await gallery.submit(prompt);
  await expect(gallery.formStatus).toHaveText(/cannot take new videos right now/);
  await expect(gallery.formStatus.getByRole("link", { name: "Buy credits" })).toHaveCount(0);
  await expect(gallery.badge(prompt)).toHaveText("Not submitted");
  await expect(gallery.card(prompt)).toContainText("Not charged.");
  await expect.poll(() => gallery.balanceValue()).toBe(before);
});

test("out of credits (402): the form says what it needs and links to buying; nothing is submitted", async ({ gallery, simulator }) => {
  await gallery.goto();
  const before = await gallery.balanceValue();
  // Leave this visitor 5 credits, as an operator's adjustment would.
  const [cookie] = (await gallery.page.context().cookies()).filter((c) => c.name === "framehook_viewer");
  const ownerId = cookie!.value.split(".")[0]!;
  await executeInAppDatabase(`INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "note", "createdAt") VALUES (?, 'ADJUSTMENT', ?, ?, 'e2e: leave 5', ?)`, [
    ownerId,
    5 - before,
    `adjustment:e2e-${ownerId}`,
    new Date().toISOString(),
  ]);
  await gallery.page.reload();
  await expect(gallery.balance).toHaveText("5");
  await expect(gallery.page.getByTestId("cost-estimate")).toHaveText(`${HOLD} credits`);
  // Said before the submit: the balance is short of this video's hold, and where to get more.
  const short = gallery.page.getByTestId("credits-short");
  await expect(short).toHaveText(`You have 5 credits: ${HOLD - 5} credits short for this video. Buy credits`);
  await expect(short.getByRole("link", { name: "Buy credits" })).toHaveAttribute("href", "/credits");

  const prompt = simulator.prompt("More than I can afford");
  await gallery.submit(prompt);
  await expect(gallery.formStatus).toHaveText(`This video needs ${HOLD} credits and you have 5 credits. Buy more at /credits. Nothing was sent to the gateway. Buy credits`);
  await expect(gallery.formStatus.getByRole("link", { name: "Buy credits" })).toHaveAttribute("href", "/credits");
  await gallery.page.getByRole("form", { name: "New video" }).screenshot({ path: test.info().outputPath("form-out-of-credits.png") });
  await expect(gallery.card(prompt)).toHaveCount(0);
  expect(await simulator.tasks()).toEqual([]);
  expect(await gallery.balanceValue()).toBe(5);

  // A shorter video still fits: 2 s holds 5, and the form no longer says it is short.
  await gallery.page.getByLabel("Duration (s)").fill("2");
  await expect(short).toHaveCount(0);
  await gallery.submit(simulator.prompt("Just a glimpse"), { "Duration (s)": "2" });
  await expect.poll(() => gallery.balanceValue()).toBe(0);
  await expect(gallery.page.getByTestId("credits-held")).toHaveText(" · 5 held");
  await gallery.page.locator("header").screenshot({ path: test.info().outputPath("header-held.png") });
  await expect(gallery.badge(simulator.prompt("Just a glimpse"))).toHaveText("Ready");
  await expect(gallery.page.getByTestId("credits-held")).toHaveCount(0);
});

test("the operator: /admin shows the gateway's balance and grants a visitor credits, which their header shows", async ({ gallery, simulator }) => {
  await gallery.goto();
  const before = await gallery.balanceValue();
  const [cookie] = (await gallery.page.context().cookies()).filter((c) => c.name === "framehook_viewer");
  const ownerId = cookie!.value.split(".")[0]!;

  const admin = await gallery.page.context().newPage();
  await admin.goto("/admin");
  await admin.getByLabel("Admin password").fill(E2E_ADMIN_PASSWORD);
  await admin.getByRole("button", { name: "Sign in" }).click();
  const gateway = await simulator.control.credits(E2E_GATEWAY_API_KEY);
  await expect(admin.getByTestId("gateway-balance")).toHaveText(gateway.toLocaleString("en-US", { maximumFractionDigits: 4 }));
  await expect(admin.getByTestId("sold-vs-spent")).toContainText("gateway credits");

  const form = admin.getByRole("form", { name: "Adjust credits" });
  await form.getByLabel("Owner").fill(ownerId);
  await form.getByLabel("Credits (negative takes)").fill("40");
  await form.getByLabel("Reason").fill("goodwill after an outage");
  await form.getByRole("button", { name: "Adjust" }).click();
  await expect(form.getByRole("status")).toHaveText(`Done: ${ownerId} now has ${(before + 40).toLocaleString("en-US")} credits.`);
  await admin.locator("#credits").locator("..").screenshot({ path: test.info().outputPath("admin-credits.png") });
  await admin.close();

  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBe(before + 40);
});
