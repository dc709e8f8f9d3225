// Flows that check the account balance in the header. They run in the
// "ledger" project, after every other flow and one at a time, because the
// balance is shared by everything that runs against the simulator.
import { expect, test } from "./fixtures";

test.describe.configure({ mode: "serial" });

test("duplicate callbacks: one card, charged once, the balance drops once", async ({ gallery, simulator }) => {
  await simulator.scenario({ callback: { duplicates: 4 } });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const prompt = simulator.prompt("Rain on a tin roof");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect.poll(async () => (await simulator.callbacks()).length).toBe(5);
  await expect(gallery.card(prompt)).toHaveCount(1);
  await expect(gallery.card(prompt).getByTestId("credits-consumed")).toHaveText("0.704 credits");
  await expect.poll(() => gallery.balanceValue()).toBeCloseTo(before - 0.704, 4);
  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBeCloseTo(before - 0.704, 4);
});

test("a failed generation: the reason, Not charged, and the balance unchanged", async ({ gallery, simulator }) => {
  await simulator.scenario({ outcome: "failure", failMsg: "The model could not render this scene." });
  await gallery.goto();
  const before = await gallery.balanceValue();
  const prompt = simulator.prompt("An impossible staircase");
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Failed");
  await expect(gallery.card(prompt)).toContainText("The model could not render this scene. Not charged.");
  await gallery.page.reload();
  expect(await gallery.balanceValue()).toBe(before);
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
