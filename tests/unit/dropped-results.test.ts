// The detail page's result section says how many result links the gateway
// named past the ones kept, so a dropped link is never silently missing.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { expect, test } from "vitest";
import { Result } from "@/app/generations/[id]/_components/result";

const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://cdn.example/v${i}.mp4`);
const render = (resultUrls: string[], resultUrlsDropped: number) =>
  renderToStaticMarkup(createElement(Result, { generation: { resultUrls, resultUrlsDropped, storedMedia: [], prompt: "a harbour at dusk" } }));

test.each([
  [16, 184, "184 more result links were dropped: the app keeps and copies the first 16 only."],
  [16, 1, "1 more result link was dropped: the app keeps and copies the first 16 only."],
])("%i kept, %i dropped: says so under the links", (kept, dropped, text) => {
  const html = render(urls(kept), dropped);
  expect(html).toContain(text);
  expect(html.match(/Gateway link \d+/g)).toHaveLength(kept);
});

test("nothing dropped: nothing said", () => {
  expect(render(urls(1), 0)).not.toContain("dropped");
});
