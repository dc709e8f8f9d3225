// Signing in for integration tests, as a person does: the app emails a link
// (over SMTP, to tests/support/mail-sink.ts), the browser opens it and gets
// its session cookie. `browserFor` keeps every cookie the app sets, as a browser.
import { expect } from "vitest";
import type { startApp } from "./app";
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
 * Asks for an email link (Better Auth's sign-in endpoint, in this process, as
 * the sign-in page's action asks), takes it from the mail sink, and opens it
 * in `browser`. Returns the account's user id.
 */
export async function signInByEmail({ app, sink, browser, email }: { app: App; sink: MailSink; browser: Browser; email: string }): Promise<string> {
  const { auth } = await import("@/lib/auth/auth");
  const { prisma } = await import("@/lib/db");
  const before = sink.received.length;
  await auth.api.signInMagicLink({ body: { email, callbackURL: "/welcome" }, headers: new Headers() });
  const mail = await sink.nextTo(email, { after: before });
  expect(mail.url, "the email carries the link").toBeTruthy();
  const landed = await browser(mail.url!);
  expect(landed.status).toBe(302);
  expect(new URL(landed.headers.get("location")!, app.baseUrl).pathname).toBe("/welcome");
  return (await prisma.user.findUniqueOrThrow({ where: { email } })).id;
}
