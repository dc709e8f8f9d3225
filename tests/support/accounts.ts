// Signing in for integration tests, as a person does: the sign-in form's
// action emails a link (over SMTP, to tests/support/mail-sink.ts), the browser
// opens it and presses its button and gets its session cookie. `browserFor`
// keeps every cookie the app sets, as a browser.
import { expect } from "vitest";
import type { startApp } from "./app";
import { actionId, callAction } from "./server-actions";
import type { startMailSink } from "./mail-sink";

type App = Awaited<ReturnType<typeof startApp>>;
type MailSink = Awaited<ReturnType<typeof startMailSink>>;

/** A browser's cookie jar over fetch: every cookie the app sets, sent back; redirects left to the caller. */
export function browserFor(baseUrl: string) {
  const jar = new Map<string, string>();
  const request = async (url: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const response = await fetch(new URL(url, baseUrl), {
      redirect: "manual",
      ...rest,
      headers: {
        ...(json === undefined ? {} : { "Content-Type": "application/json" }),
        ...(jar.size ? { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } : {}),
        ...rest.headers,
      },
      body: json === undefined ? rest.body : JSON.stringify(json),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const name = pair!.slice(0, pair!.indexOf("="));
      const value = pair!.slice(pair!.indexOf("=") + 1);
      const expired = attributes.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=Thu, 01 Jan 1970/i.test(a.trim()));
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
  const guestId = () => jar.get("framehook_viewer")?.split(".")[0];
  return Object.assign(request, { jar, guestId });
}
export type Browser = ReturnType<typeof browserFor>;

/**
 * Asks for an email link as the sign-in page's form does (its server action,
 * over HTTP, with the browser's cookies: the app sets the asker cookie), and
 * returns the link once the mail sink has it. `ids`: another build's action ids (the image's).
 */
export async function askForLink({ sink, browser, email, ids = actionId }: { sink: MailSink; browser: Browser; email: string; ids?: (name: string) => string }): Promise<string> {
  const before = sink.received.length;
  // React's encoding of a form action's arguments: the form's fields (prefixed "_1_"), then the arguments
  // (the previous state and the form), last, as the server reads the fields as they stream in.
  const body = new FormData();
  body.set("_1_email", email);
  body.set("0", JSON.stringify([{ status: "idle" }, "$K1"]));
  const response = await browser("/sign-in", { method: "POST", headers: { "Next-Action": ids("requestSignInLink"), Accept: "text/x-component" }, body });
  const answer = await response.text();
  expect(response.status, answer).toBe(200);
  expect(answer, "the form answers \"sent\"").toContain('"status":"sent"');
  const mail = await sink.nextTo(email, { after: before });
  expect(mail.url, "the email carries the link").toBeTruthy();
  return mail.url!;
}

/**
 * Opens an emailed link and presses its button (the page's server action, with
 * the token and tag the page bound to it). Returns the response to the press.
 */
export async function confirmLink({ browser, link, ids = actionId }: { browser: Browser; link: string; ids?: (name: string) => string }) {
  const url = new URL(link);
  const page = await browser(url.pathname + url.search);
  expect(page.status).toBe(200);
  return callAction(browser, "confirmSignInLink", [url.searchParams.get("token"), url.searchParams.get("asker")], url.pathname + url.search, ids);
}

/** Signs `browser` in with a link it asked for itself. Returns the account's user id. */
export async function signInByEmail({ app, sink, browser, email }: { app: App; sink: MailSink; browser: Browser; email: string }): Promise<string> {
  const { prisma } = await import("@/lib/db");
  const link = await askForLink({ sink, browser, email });
  expect(new URL(link).origin).toBe(new URL(app.baseUrl).origin);
  await confirmLink({ browser, link });
  const userId = (await prisma.user.findUniqueOrThrow({ where: { email } })).id;
  expect(browser.jar.has("better-auth.session_token"), "the press signed the browser in").toBe(true);
  return userId;
}
