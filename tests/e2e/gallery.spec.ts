// The gallery as its users meet it: the viewer, Remix, Retry, Delete, search
// and filters in the address bar, and progress against the app's own history.
// Every flow narrows the gallery to its own marker with the search box, so
// flows running side by side never see each other's cards.
import { image } from "../support/media-fixtures";
import { expect, test, type GalleryPage } from "./fixtures";

async function search(gallery: GalleryPage, text: string) {
  await gallery.page.getByRole("searchbox", { name: "Search prompts" }).fill(text);
  // Kept in the address bar once the typing pauses: shareable, and it survives a reload.
  await expect.poll(() => new URL(gallery.page.url()).searchParams.get("q")).toBe(text);
}

const cards = (gallery: GalleryPage) => gallery.page.getByRole("list", { name: "Generations" }).getByRole("article");

test("viewer: ←/→ move between the videos, Esc closes and gives focus back", async ({ gallery, simulator }) => {
  const first = simulator.prompt("Lanterns rising over a lake");
  const second = simulator.prompt("A heron lifting off at dawn");
  await gallery.goto();
  await gallery.submit(first);
  await expect(gallery.badge(first)).toHaveText("Ready");
  await gallery.submit(second);
  await expect(gallery.badge(second)).toHaveText("Ready");
  await search(gallery, simulator.marker);
  await expect(cards(gallery)).toHaveCount(2);

  // Newest first: the heron, then the lanterns.
  const tile = gallery.card(second).getByRole("button", { name: /in the viewer/ });
  await tile.focus();
  await gallery.page.keyboard.press("Enter");
  const viewer = gallery.page.getByRole("dialog");
  await expect(viewer.getByRole("heading")).toHaveText(second);
  await expect(viewer.getByText("1 of 2")).toBeVisible();
  await expect(viewer.getByRole("link", { name: "Download" })).toHaveAttribute("href", /\/media\//);
  await expect(viewer.getByTestId("viewer-cost")).toHaveText(/credits$/);

  await gallery.page.keyboard.press("ArrowRight");
  await expect(viewer.getByRole("heading")).toHaveText(first);
  await expect(viewer.getByRole("button", { name: "Next →" })).toBeDisabled();
  await gallery.page.keyboard.press("ArrowRight"); // the last one: stays
  await expect(viewer.getByRole("heading")).toHaveText(first);
  await gallery.page.keyboard.press("ArrowLeft");
  await expect(viewer.getByRole("heading")).toHaveText(second);

  await gallery.page.keyboard.press("Escape");
  await expect(viewer).toHaveCount(0);
  await expect(tile).toBeFocused();
});

test("remix fills the form with the same model, prompt and options", async ({ gallery, simulator }) => {
  const prompt = simulator.prompt("A glass marble rolling down a spiral");
  await gallery.goto();
  await gallery.chooseModel("alpha-2.5-text-to-video");
  await gallery.page.getByLabel("Aspect ratio").selectOption("9:16");
  await gallery.submit(prompt, { "Duration (s)": "7", "Negative prompt": "blur" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  await expect(gallery.page.getByLabel("Prompt", { exact: true })).toHaveValue(""); // the form was reset

  await gallery.card(prompt).getByRole("button", { name: /^Remix/ }).click();
  await expect(gallery.page.getByLabel("Model")).toHaveValue("alpha-2.5-text-to-video");
  await expect(gallery.page.getByLabel("Prompt", { exact: true })).toHaveValue(prompt);
  await expect(gallery.page.getByLabel("Prompt", { exact: true })).toBeFocused();
  await expect(gallery.page.getByLabel("Duration (s)")).toHaveValue("7");
  await expect(gallery.page.getByLabel("Aspect ratio")).toHaveValue("9:16");
  await expect(gallery.page.getByLabel("Negative prompt")).toHaveValue("blur");
  await expect(gallery.page.getByTestId("cost-estimate")).toHaveText("15 credits");
});

test("retry: a failed generation gets one new generation, however often Retry is pressed", async ({ gallery, simulator }) => {
  await simulator.scenario({ outcome: "failure", failMsg: "The model was busy.", times: 1 });
  const prompt = simulator.prompt("Fireflies in a jar");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Failed");
  await search(gallery, simulator.marker);
  await expect(cards(gallery)).toHaveCount(1);

  const retry = gallery.card(prompt).getByRole("button", { name: /^Retry/ });
  await retry.click();
  await expect(cards(gallery)).toHaveCount(2);
  await expect(cards(gallery).first().getByTestId("state-badge")).toHaveText("Ready");
  await expect(cards(gallery).first()).toHaveAccessibleName(`Generation: ${prompt}`);
  // Pressed again (another tab, a double click): the same retry, nothing new.
  await retry.click();
  await expect(retry).toHaveText(/^Retry/);
  await expect(cards(gallery)).toHaveCount(2);
  await gallery.page.reload();
  await expect(cards(gallery)).toHaveCount(2);
  await expect(cards(gallery).nth(1).getByTestId("state-badge")).toHaveText("Failed");
  expect(await simulator.tasks()).toHaveLength(2);
});

test("delete hides the card for good and keeps its accounting row", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A snow globe being shaken");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  const id = (await gallery.card(prompt).getByRole("link", { name: /Details/ }).getAttribute("href"))!.split("/").pop()!;

  await gallery.card(prompt).getByRole("button", { name: /^Delete/ }).click();
  await gallery.card(prompt).getByRole("button", { name: /^Confirm delete/ }).click();
  await expect(gallery.card(prompt)).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "Deleted from the gallery." })).toBeAttached();
  await page.reload();
  await search(gallery, simulator.marker);
  await expect(gallery.page.getByText("No videos match these filters.")).toBeVisible();

  // The row, its credits and its timeline stay.
  const row = await page.request.get(`/api/generations/${id}`);
  expect(row.status()).toBe(200);
  const kept = await row.json();
  expect(kept).toMatchObject({ id, state: "SUCCESS" });
  expect(kept.creditsConsumed).toBeGreaterThan(0);
  const listed = await page.request.get(`/api/generations?q=${encodeURIComponent(simulator.marker)}`);
  expect((await listed.json()).items).toEqual([]);
});

test("search finds prompts case-insensitively; search and filters survive a reload", async ({ gallery, simulator }) => {
  await simulator.control.scenario({ outcome: "failure", match: `${simulator.marker} harbour` });
  const lighthouse = `${simulator.marker} Lighthouse beam sweeping the fog`;
  const harbour = `${simulator.marker} harbour at low tide`;
  const meadow = `${simulator.marker} meadow, lighthouse in the distance`;
  await gallery.goto();
  for (const prompt of [lighthouse, harbour, meadow]) {
    await gallery.submit(prompt);
    await expect(gallery.badge(prompt)).toHaveText(/Ready|Failed/);
  }

  await search(gallery, `${simulator.marker} LIGHTHOUSE`);
  await expect(cards(gallery)).toHaveCount(1);
  await expect(gallery.card(lighthouse)).toBeVisible();

  await search(gallery, simulator.marker);
  await expect(cards(gallery)).toHaveCount(3);
  await gallery.page.getByLabel("Show").selectOption("SUCCESS");
  await expect(cards(gallery)).toHaveCount(2);
  await expect(gallery.page).toHaveURL(/state=SUCCESS/);

  await gallery.page.reload();
  await expect(gallery.page.getByRole("searchbox", { name: "Search prompts" })).toHaveValue(simulator.marker);
  await expect(gallery.page.getByLabel("Show")).toHaveValue("SUCCESS");
  await expect(cards(gallery)).toHaveCount(2);
  await expect(gallery.card(harbour)).toHaveCount(0);
});

test("progress: no bar without history; the next generation of that model and duration shows one", async ({ gallery, simulator }, testInfo) => {
  // A duration no other flow uses (and another on a retry), so the history starts empty.
  const duration = String(9 - testInfo.retry);
  const first = simulator.prompt("Clouds over a ridge, time-lapse");
  const second = simulator.prompt("Clouds over a ridge, second take");
  await gallery.goto();
  await gallery.chooseModel("alpha-2.5-first-last-frame-480p");
  const frames = async () => {
    await gallery.attach("First frame", { name: "a.png", mimeType: "image/png", buffer: image() });
    await gallery.attach("Last frame", { name: "b.png", mimeType: "image/png", buffer: image() });
  };
  await frames();
  await gallery.submit(first, { "Duration (s)": duration });
  await expect(gallery.card(first).getByTestId("progress")).toHaveAttribute("data-progress", "unknown");
  await expect(gallery.card(first).getByRole("progressbar")).toHaveCount(0);
  await expect(gallery.badge(first)).toHaveText("Ready");

  await simulator.scenario({ pendingMs: 60_000 });
  await frames();
  await gallery.submit(second, { "Duration (s)": duration });
  const bar = gallery.card(second).getByRole("progressbar");
  await expect(bar).toBeVisible();
  await expect(gallery.card(second).getByTestId("progress")).toContainText(/left|longer than usual/);
  // The typical time is a few seconds (the first one's time): soon past it.
  await expect(gallery.card(second).getByTestId("progress")).toContainText("Taking longer than usual");
  await expect(bar).toHaveAttribute("aria-valuetext", "Taking longer than usual");
});

test("the detail page offers the card's actions: Remix fills the gallery's form, Delete returns to a gallery without it", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("A paper lantern rising over a river");
  await gallery.goto();
  await gallery.submit(prompt, { "Duration (s)": "3" });
  await expect(gallery.badge(prompt)).toHaveText("Ready");

  await gallery.openDetails(prompt);
  await page.getByRole("button", { name: /^Remix/ }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue(prompt);
  await expect(page.getByLabel("Duration (s)")).toHaveValue("3");
  // Filled once: a later visit to the gallery starts with an empty form.
  await gallery.openDetails(prompt);
  await page.getByRole("link", { name: "← Gallery" }).click();
  await expect(page.getByRole("list", { name: "Generations" })).toBeVisible();
  await page.waitForTimeout(500); // a stale remix would fill the form a frame after it mounts
  expect(await page.getByLabel("Prompt", { exact: true }).inputValue()).toBe("");

  await gallery.openDetails(prompt);
  await page.getByRole("button", { name: /^Delete/ }).click();
  await page.getByRole("button", { name: /^Confirm delete/ }).click();
  await expect(page).toHaveURL(/\/$/);
  await search(gallery, simulator.marker);
  await expect(page.getByText("No videos match these filters.")).toBeVisible();
});

test("the server's page is shown as current while the browser revalidates it: not dimmed, not busy", async ({ gallery, simulator, page }) => {
  const prompt = simulator.prompt("Moss on a stone bridge");
  await gallery.goto();
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");

  // Hold the browser's reads of the list: the page must stand on what the server rendered.
  await page.route("**/api/generations?**", () => {});
  await page.goto(`/?q=${encodeURIComponent(simulator.marker)}`);
  const list = page.getByRole("list", { name: "Generations" });
  await expect(list.getByRole("article")).toHaveCount(1);
  await page.waitForTimeout(500);
  await expect(list).toHaveAttribute("aria-busy", "false");
  await expect(list).not.toHaveClass(/opacity-60/);
});

test("a prompt typed while the last submission is being answered is kept when the answer arrives", async ({ gallery, simulator, page }) => {
  await simulator.scenario({ latencyMs: 2000 });
  const first = simulator.prompt("A heron standing in the reeds");
  await gallery.goto();
  await gallery.submit(first);
  await expect(page.getByRole("button", { name: "Submitting…" })).toBeVisible();
  const next = simulator.prompt("A heron taking flight");
  await page.getByLabel("Prompt", { exact: true }).fill(next);
  // Answered: the button is back, and the first generation has its card.
  await expect(page.getByRole("button", { name: "Generate video" })).toBeEnabled({ timeout: 15_000 });
  await expect(gallery.card(first)).toBeVisible();
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue(next);
});
