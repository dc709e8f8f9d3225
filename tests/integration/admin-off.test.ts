// /admin before it is turned on: without ADMIN_PASSWORD or ADMIN_EMAILS the
// page says what to set (not a bare 404), and shows nothing of the data.
import { afterAll, expect, test } from "vitest";
import { startApp } from "../support/app";

// The suites' environment sets an admin password: this app runs without one.
const app = await startApp({ env: { ADMIN_PASSWORD: "", ADMIN_EMAILS: "" } });
afterAll(() => app.close());

test("/admin without ADMIN_PASSWORD or ADMIN_EMAILS says how to turn it on, and shows no sign-in form or data", async () => {
  const response = await app.fetch("/admin");
  expect(response.status).toBe(200);
  const html = (await response.text()).replaceAll("<!-- -->", "");
  expect(html).toContain("Admin is off");
  expect(html).toMatch(/ADMIN_PASSWORD<\/code>: a password of at least 12 characters/);
  expect(html).toContain("ADMIN_EMAILS</code>: signed-in accounts whose verified email is listed");
  expect(html).not.toContain("Admin password");
  expect(html).not.toContain("Delivery log");
});
