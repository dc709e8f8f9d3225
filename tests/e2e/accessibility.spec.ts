// axe-core over the pages end users spend their time on, in light and dark,
// on a phone and a laptop: the gallery (a new visitor's, empty; busy, with
// failures; a search that finds nothing), the viewer and the detail page.
// Zero violations, WCAG 2.1 A/AA and best practices.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  // Short enough to read in a failure message: the rule, and where.
  return results.violations.map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [390, 1280]) {
    test(`no axe violations: ${colorScheme}, ${width} px`, async ({ gallery, simulator, page }) => {
      // Three generations, six pages and states, an axe run on each: on a loaded 2-core machine the
      // whole flow outlasted the 60 s default (an axe run alone took tens of seconds), with nothing wrong.
      test.slow();
      await page.emulateMedia({ colorScheme, reducedMotion: "reduce" });
      await page.setViewportSize({ width, height: 900 });
      await simulator.control.scenario({ match: `${simulator.marker} fails`, outcome: "failure", failMsg: "The model was busy." });
      await simulator.control.scenario({ match: `${simulator.marker} waits`, pendingMs: 120_000 });
      const ready = simulator.prompt("A kite over dunes");
      const failed = `${simulator.marker} fails: a storm over the sea`;
      const waiting = `${simulator.marker} waits: a slow sunrise`;
      await gallery.goto();
      // Truly empty: this test's browser is a new visitor, whose gallery holds nothing yet.
      await expect(page.getByText("No videos yet")).toBeVisible();
      expect(await violations(page), "new visitor's empty gallery").toEqual([]);
      for (const prompt of [ready, failed, waiting]) {
        await gallery.submit(prompt);
        // The form resets once the server has answered: only then type the next one.
        await expect(gallery.formStatus).toHaveText(/Submitted/);
        await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue("");
      }
      await expect(gallery.badge(ready)).toHaveText("Ready");
      await expect(gallery.badge(failed)).toHaveText("Failed");
      await expect(gallery.badge(waiting)).toHaveText("Generating");

      // The gallery, busy and with a failure (the whole page: form, header, filters).
      await page.goto(`/?q=${encodeURIComponent(simulator.marker)}`);
      await expect(page.getByRole("list", { name: "Generations" }).getByRole("article")).toHaveCount(3);
      expect(await violations(page), "gallery").toEqual([]);

      // The viewer.
      await gallery.card(ready).getByRole("button", { name: /in the viewer/ }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
      expect(await violations(page), "viewer").toEqual([]);
      await page.keyboard.press("Escape");

      // Empty: a search that matches nothing.
      await page.getByRole("searchbox", { name: "Search prompts" }).fill(`${simulator.marker} nothing like this`);
      await expect(page.getByText("No videos match these filters.")).toBeVisible();
      expect(await violations(page), "empty gallery").toEqual([]);

      // The detail pages of a finished and of a failed generation.
      for (const prompt of [ready, failed]) {
        await page.goto(`/?q=${encodeURIComponent(simulator.marker)}`);
        await gallery.openDetails(prompt);
        // After a client-side navigation the page's title is streamed in just after its content.
        await expect(page).toHaveTitle(new RegExp(`^${escapeRegExp(prompt.slice(0, 20))}`));
        expect(await violations(page), `detail page (${prompt})`).toEqual([]);
      }
    });
  }
}
