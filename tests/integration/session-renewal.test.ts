// Sessions last while used: a session is renewed (its row and its cookie) by
// the requests that can set cookies, so a person using the app is never
// signed out at the first expiry; one left idle ends then. Short lifetimes
// through the environment (AUTH_SESSION_SECONDS, AUTH_SESSION_RENEW_SECONDS)
// stand for the 30 days and the day.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { uniqueMarker } from "../support/simulator-control";

const LIFETIME_SECONDS = 12;
const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, AUTH_SESSION_SECONDS: String(LIFETIME_SECONDS), AUTH_SESSION_RENEW_SECONDS: "2" } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const email = (name: string) => `${name}-${uniqueMarker("m").replace(/\W/g, "").toLowerCase()}@example.com`;
const sessionOf = (userId: string) => prisma.session.findFirstOrThrow({ where: { userId } });
/** What /account shows this browser: the account's page, or a redirect to sign in. */
async function accountPage(browser: Browser, address: string): Promise<"signed in" | "signed out"> {
  const response = await browser("/account");
  if (response.status === 200) {
    expect(await response.text()).toContain(address);
    return "signed in";
  }
  expect(response.status).toBe(307);
  expect(new URL(response.headers.get("location")!, app.baseUrl).pathname).toBe("/sign-in");
  return "signed out";
}
const pace = () => new Promise((resolve) => setTimeout(resolve, 500));

describe("a session", () => {
  test("used (the gallery's requests) outlives its first expiry; its cookie is renewed with it", async () => {
    const address = email("active");
    const browser = browserFor(app.baseUrl);
    const userId = await signInByEmail({ app, sink, browser, email: address });
    const firstExpiry = (await sessionOf(userId)).expiresAt.getTime();
    let renewedCookies = 0;
    // Used every half second (the pace of a person's tab polling), until well past the first expiry.
    while (Date.now() < firstExpiry + 3000) {
      const response = await browser("/api/credits");
      expect(response.status).toBe(200);
      const renewed = response.headers.getSetCookie().find((line) => line.includes("better-auth.session_token="));
      if (renewed) {
        expect(renewed).toMatch(new RegExp(`Max-Age=${LIFETIME_SECONDS}\\b`, "i"));
        renewedCookies++;
      }
      await pace();
    }
    expect(renewedCookies).toBeGreaterThan(0);
    expect((await sessionOf(userId)).expiresAt.getTime()).toBeGreaterThan(firstExpiry);
    expect(await accountPage(browser, address)).toBe("signed in");
  });

  test("left idle ends at its expiry", async () => {
    const address = email("idle");
    const browser = browserFor(app.baseUrl);
    const userId = await signInByEmail({ app, sink, browser, email: address });
    expect(await accountPage(browser, address)).toBe("signed in");
    const expiry = (await sessionOf(userId)).expiresAt.getTime();
    // The one thing waited for is the clock passing the expiry the row names.
    await waitFor(() => Date.now() > expiry + 500, (LIFETIME_SECONDS + 10) * 1000);
    expect(await accountPage(browser, address)).toBe("signed out");
    expect((await browser("/api/credits")).status).toBe(200); // a guest again, not an error
  });
});
