// The guard every flow runs under: it must see what the browser complains
// about, or the flows' clean consoles prove nothing.
import { expect, test } from "./fixtures";

test("the browserErrors fixture records failed requests, console errors and uncaught errors", async ({ page, browserErrors }) => {
  await page.goto("/generations/no-such-generation");
  await page.evaluate(() => {
    console.error("a console error");
    setTimeout(() => {
      throw new Error("an uncaught error");
    });
  });
  await expect
    .poll(() => browserErrors.unexpected())
    .toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^404 GET http:\/\/[^ ]+\/generations\/no-such-generation$/),
        expect.stringMatching(/^console error: Failed to load resource: the server responded with a status of 404/),
        "console error: a console error",
        expect.stringMatching(/^uncaught: Error: an uncaught error/),
      ]),
    );

  // Allowed, each for a stated reason, they no longer fail the flow.
  browserErrors.allow({ url: /\/generations\/no-such-generation$/, status: 404, reason: "this test asks for a missing page" });
  browserErrors.allow({ kind: "console", text: /^a console error$/, reason: "this test logs it" });
  expect(browserErrors.unexpected()).toEqual([expect.stringMatching(/^uncaught: Error: an uncaught error/)]);
  browserErrors.allow({ kind: "pageerror", text: /an uncaught error/, reason: "this test throws it" });
  expect(browserErrors.unexpected()).toEqual([]);
});
