// Flows that check the account balance in the header. They run in the
// "ledger" project, after every other flow and one at a time, because the
// balance is shared by everything that runs against the simulator. Each also
// checks what the app itself recorded: the card's credits and the visitor's
// spend, which a double apply would double.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

test.describe.configure({ mode: "serial" });

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

test("duplicate callbacks: one card, charged once, the balance drops once", async ({ gallery, simulator }) => {
  await simulator.scenario({ callback: { duplicates: 4 } });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const spentBefore = await spent(gallery.page);
  const prompt = simulator.prompt("Rain on a tin roof");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect.poll(async () => (await simulator.callbacks()).length).toBe(5);
  await expect(gallery.card(prompt)).toHaveCount(1);
  await expect(gallery.card(prompt).getByTestId("credits-consumed")).toHaveText("0.704 credits");
  await expect.poll(() => gallery.balanceValue()).toBeCloseTo(before - 0.704, 4);
  expect(await spent(gallery.page)).toBeCloseTo(spentBefore + 0.704, 4);
  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBeCloseTo(before - 0.704, 4);
});

test("a failed generation: the reason, Not charged, and the balance unchanged", async ({ gallery, simulator }) => {
  await simulator.scenario({ outcome: "failure", failMsg: "The model could not render this scene." });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const spentBefore = await spent(gallery.page);
  const prompt = simulator.prompt("An impossible staircase");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Failed");
  await expect(gallery.card(prompt)).toContainText("The model could not render this scene. Not charged.");
  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBe(before);
  expect(await spent(gallery.page)).toBe(spentBefore);
});

test("insufficient credits (402): a clear message, a Not submitted card, nothing charged", async ({ gallery, simulator }) => {
  await simulator.scenario({ submitStatus: 402 });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const prompt = simulator.prompt("A very long epic");
  await gallery.submit(prompt);
  await expect(gallery.formStatus).toHaveText(/Not enough credits/);
  await expect(gallery.badge(prompt)).toHaveText("Not submitted");
  await expect(gallery.card(prompt)).toContainText("Not charged.");
  expect(await gallery.balanceValue()).toBe(before);
});
