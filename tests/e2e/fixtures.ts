// Fixtures QA extends: `gallery` (the page object) and `simulator` (the
// gateway's scenario control, scoped to this test by a marker in the prompt).
import { test as base, expect, type Locator, type Page } from "@playwright/test";
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

  async submit(prompt: string, fields: Record<string, string> = {}) {
    await this.page.getByLabel("Prompt", { exact: true }).fill(prompt);
    for (const [label, value] of Object.entries(fields)) await this.page.getByLabel(label).fill(value);
    await this.page.getByRole("button", { name: "Generate video" }).click();
  }

  card(text: string): Locator {
    return this.page.getByRole("article", { name: new RegExp(escapeRegExp(text)) });
  }

  get status(): Locator {
    return this.page.getByRole("status");
  }

  get balance(): Locator {
    return this.page.getByTestId("credits-balance");
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
}

export const test = base.extend<{ gallery: GalleryPage; simulator: SimulatorFixture }>({
  gallery: async ({ page }, use) => {
    await use(new GalleryPage(page));
  },
  simulator: async ({}, use, testInfo) => {
    await use(new SimulatorFixture(new SimulatorControl(SIMULATOR_URL), uniqueMarker(`t${testInfo.workerIndex}`)));
  },
});

export { expect };

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
