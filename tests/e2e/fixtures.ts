// Fixtures QA extends: `gallery` (the page object), `simulator` (the
// gateway's scenario control, scoped to one test by a marker in its prompts,
// so tests running side by side never disturb each other) and `browserErrors`
// (automatic: any console error, page error or 4xx/5xx fails the flow).
import { test as base, expect, type Locator, type Page } from "@playwright/test";
import { BrowserErrors } from "./browser-errors";
import { SimulatorControl, uniqueMarker, type Scenario } from "../support/simulator-control";
import { SIMULATOR_URL } from "../../playwright.config";

export class GalleryPage {
  constructor(readonly page: Page) {}

  async goto() {
    await this.page.goto("/");
    await expect(this.page.getByRole("heading", { name: "Gallery" })).toBeVisible();
  }

  async chooseModel(id: string) {
    await this.page.getByLabel("Model").selectOption(id);
  }

  /** Fills the prompt and any other fields (by label), then submits. */
  async submit(prompt: string, fields: Record<string, string> = {}) {
    await this.page.getByLabel("Prompt", { exact: true }).fill(prompt);
    for (const [label, value] of Object.entries(fields)) await this.page.getByLabel(label, { exact: false }).fill(value);
    await this.page.getByRole("button", { name: "Generate video" }).click();
  }

  /** The media field labelled `label` (a frame, reference videos): its drop zone. */
  mediaField(label: string): Locator {
    return this.page.getByRole("group", { name: label, exact: true });
  }

  /** Picks files for a media field and waits until every one is uploaded and checked. */
  async attach(label: string, ...files: { name: string; mimeType: string; buffer: Buffer }[]) {
    const field = this.mediaField(label);
    const before = await field.getByTestId("upload-item").count();
    await field.locator('input[type="file"]').setInputFiles(files);
    await expect(field.getByTestId("upload-item")).toHaveCount(before + files.length);
    for (const item of await field.getByTestId("upload-item").all()) await expect(item).toHaveAttribute("data-status", "done", { timeout: 20_000 });
  }

  /** The card of the generation whose prompt contains `text`. */
  card(text: string): Locator {
    return this.page.getByRole("article", { name: new RegExp(escapeRegExp(text)) });
  }

  badge(text: string): Locator {
    return this.card(text).getByTestId("state-badge");
  }

  async openDetails(text: string) {
    await this.card(text).getByRole("link", { name: /Details/ }).click();
    await expect(this.page.getByRole("heading", { name: "Timeline" })).toBeVisible();
  }

  /** The form's answer, announced in its own role="status" region (a media field has one of its own). */
  get formStatus(): Locator {
    return this.page.locator('form[aria-label="New video"] > [role="status"]');
  }

  fieldError(label: string): Locator {
    return this.page.getByLabel(label, { exact: true });
  }

  get balance(): Locator {
    return this.page.getByTestId("credits-balance");
  }

  /** The balance shown in the header, as a number. */
  async balanceValue(): Promise<number> {
    await expect(this.balance).toHaveText(/^[\d,.]+$/);
    return Number((await this.balance.textContent())!.replace(/,/g, ""));
  }
}

/** Scenario control for one test: every scenario matches only prompts containing `marker`. */
export class SimulatorFixture {
  constructor(
    readonly control: SimulatorControl,
    readonly marker: string,
  ) {}

  /** A prompt that this test's scenarios apply to. */
  prompt(text: string) {
    return `${text} ${this.marker}`;
  }

  scenario(scenario: Omit<Scenario, "match">) {
    return this.control.scenario({ ...scenario, match: this.marker });
  }

  tasks() {
    return this.control.tasks(this.marker);
  }

  requests() {
    return this.control.requests(this.marker);
  }

  callbacks() {
    return this.control.callbacks(this.marker);
  }

  /** The input files the gateway fetched for this test's tasks. */
  inputs() {
    return this.control.inputs(this.marker);
  }
}

export const test = base.extend<{ gallery: GalleryPage; simulator: SimulatorFixture; browserErrors: BrowserErrors }>({
  browserErrors: [
    async ({ context }, use) => {
      const errors = new BrowserErrors();
      errors.watch(context);
      await use(errors);
      // Let responses and console lines already under way land before judging.
      for (const page of context.pages()) await page.waitForLoadState("load").catch(() => undefined);
      expect(errors.unexpected(), "console errors, page errors or failed requests this flow did not allow").toEqual([]);
    },
    { auto: true },
  ],
  gallery: async ({ page }, use) => {
    await use(new GalleryPage(page));
  },
  simulator: async ({}, use, testInfo) => {
    const fixture = new SimulatorFixture(new SimulatorControl(SIMULATOR_URL), uniqueMarker(`t${testInfo.workerIndex}`));
    await use(fixture);
    // Leave nothing behind: a task this flow left pending (a slow scenario it
    // never waited out) is settled now, so that it is charged before the ledger
    // flows start rather than in the middle of one.
    await fixture.control.settle(fixture.marker);
    await fixture.control.clearScenarios(fixture.marker);
  },
});

export { expect };

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
