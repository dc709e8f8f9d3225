// Sign-in limits behind a proxy (TRUSTED_PROXY_HOPS=1: the X-Forwarded-For a
// test sends is the address the proxy saw). Better Auth's own limits count
// each client apart, in the database; asking for someone's links from another
// address never locks them out.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { browserFor } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { actionId } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, TRUSTED_PROXY_HOPS: "1" } });
const { auth } = await import("@/lib/auth/auth");
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const email = (name: string) => `${name}-${uniqueMarker("m").replace(/\W/g, "").toLowerCase()}@example.com`;
/** A made-up link, opened from `address`. */
const bogusClick = (address: string) =>
  fetch(new URL(`/api/auth/magic-link/verify?token=${uniqueMarker("bogus").replace(/\W/g, "")}&callbackURL=%2Fwelcome`, app.baseUrl), {
    redirect: "manual",
    headers: { "X-Forwarded-For": address },
  }).then((response) => response.status);

/** Asks for a link for `to` in this process (as the sign-in action does) and returns it. */
async function linkFor(to: string): Promise<string> {
  const before = sink.received.length;
  await auth.api.signInMagicLink({ body: { email: to, callbackURL: "/welcome" }, headers: new Headers() });
  const mail = await sink.nextTo(to, { after: before });
  return mail.url!;
}

/** The sign-in page's form, posted from `address` as the browser posts it (React's encoding of `(state, formData)`). */
async function askForLink(to: string, address: string): Promise<string> {
  const form = new FormData();
  // The form's fields first, then the arguments naming them: the server reads the body as a stream.
  form.set("_1_email", to);
  form.set("0", JSON.stringify([{ status: "idle" }, "$K1"]));
  const response = await fetch(new URL("/sign-in", app.baseUrl), {
    method: "POST",
    headers: { "Next-Action": actionId("requestSignInLink"), Accept: "text/x-component", "X-Forwarded-For": address },
    body: form,
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe("Better Auth's limits behind a proxy", { timeout: 120_000 }, () => {
  test("120 made-up link clicks from 120 clients leave the real user's link working", async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 120; i++) statuses.add(await bogusClick(`198.51.${100 + Math.floor(i / 200)}.${i + 1}`));
    expect([...statuses]).not.toContain(429);
    const to = email("real");
    const link = await linkFor(to);
    const browser = browserFor(app.baseUrl);
    const landed = await browser(link, { headers: { "X-Forwarded-For": "203.0.113.77" } });
    expect(landed.status).toBe(302);
    expect(new URL(landed.headers.get("location")!, app.baseUrl).pathname).toBe("/welcome");
    expect(await prisma.session.count({ where: { user: { email: to } } })).toBe(1);
  });

  test("one client past the verify limit is refused, in the database; another client is not", async () => {
    const flooder = "192.0.2.44";
    // The limiter counts in fixed windows (the verify rule's is a minute): start the flood in a fresh one.
    const windowEnd = Math.ceil(Date.now() / 60_000) * 60_000;
    if (windowEnd - Date.now() < 40_000) await waitFor(() => Date.now() >= windowEnd, 45_000);
    const before = await prisma.rateLimit.count({ where: { key: { startsWith: "auth:" } } });
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push(await bogusClick(flooder));
    expect(statuses.slice(0, 100)).not.toContain(429);
    expect(statuses[100]).toBe(429);
    // Counted in the database (every instance sees it), under a keyed hash: no address in the table.
    const rows = await prisma.rateLimit.findMany({ where: { key: { startsWith: "auth:" } } });
    expect(rows.length).toBeGreaterThan(before);
    expect(rows.some((row) => row.count >= 100)).toBe(true);
    expect(rows.every((row) => !row.key.includes(flooder))).toBe(true);
    expect(await bogusClick("192.0.2.45")).not.toBe(429);
  });
});

describe("the per-email link limit", () => {
  test("asking for someone's links from another address never locks them out of sign-in", async () => {
    const victim = email("victim");
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(await askForLink(victim, "192.0.2.80"));
    expect(answers.slice(0, 5).every((text) => text.includes('"sent"')), answers[0]).toBe(true);
    expect(answers[5]).toContain("Too many sign-in links");
    // The victim, from their own address, still gets their link.
    const before = sink.received.length;
    expect(await askForLink(victim, "203.0.113.90")).toContain('"sent"');
    expect((await sink.nextTo(victim, { after: before })).url).toBeTruthy();
  });
});
