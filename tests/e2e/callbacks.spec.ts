// Callbacks that never come, come late, or come many times: the gallery and
// the detail page stay right.
import { expect, test } from "./fixtures";

test("callbacks dropped: the task completes by polling", async ({ gallery, simulator }) => {
  await simulator.scenario({ pendingMs: 1000, callback: { mode: "drop" } });
  const prompt = simulator.prompt("Fireflies over a meadow");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready", { timeout: 20_000 });
  expect(await simulator.callbacks()).toEqual([]);
  await gallery.openDetails(prompt);
  await expect(gallery.page.getByTestId("delivery").filter({ hasText: /poll.*applied/ })).toHaveCount(1);
  await expect(gallery.page.getByTestId("delivery").filter({ hasText: /callback/ })).toHaveCount(0);
});

test("a callback arriving after polling finished the task changes nothing", async ({ gallery, simulator, page, browserErrors }) => {
  // A tab without the event stream polls every 3 s, so polling surely finishes the task before the
  // late callback (a live tab polls only every 10 s as a safety net, and the event would carry the callback's news).
  browserErrors.allow({ kind: "console", url: /\/api\/generations\/events/, reason: "this test blocks the event stream" });
  browserErrors.allow({ kind: "console", text: /api\/generations\/events/, reason: "this test blocks the event stream" });
  await page.route("**/api/generations/events**", (route) => route.abort());
  await simulator.scenario({ pendingMs: 500, callback: { delayMs: 9000 } });
  const prompt = simulator.prompt("Tide coming in over sand");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready", { timeout: 20_000 });
  const card = gallery.card(prompt);
  const credits = await card.getByTestId("generation-credits").textContent();

  await expect.poll(async () => (await simulator.callbacks()).length, { timeout: 20_000 }).toBe(1);
  await gallery.openDetails(prompt);
  const deliveries = gallery.page.getByTestId("delivery");
  await expect(deliveries.filter({ hasText: /poll.*applied/ })).toHaveCount(1);
  await expect(deliveries.filter({ hasText: /callback.*duplicate/ })).toHaveCount(1);
  // The same charge on the detail page: captured once, whatever came late.
  await expect(gallery.page.getByTestId("detail-credits")).toHaveText(credits!);
});

test("the detail page's timeline shows every delivery", async ({ gallery, simulator }) => {
  await simulator.scenario({ callback: { duplicates: 2 } });
  const prompt = simulator.prompt("A kite over the dunes");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect.poll(async () => (await simulator.callbacks()).length).toBe(3);
  await gallery.openDetails(prompt);
  const deliveries = gallery.page.getByTestId("delivery");
  await expect(deliveries.filter({ hasText: /callback.*applied/ })).toHaveCount(1);
  await expect(deliveries.filter({ hasText: /callback.*duplicate/ })).toHaveCount(2);
  await expect(gallery.page.getByText("Raw generation JSON")).toBeVisible();
});
