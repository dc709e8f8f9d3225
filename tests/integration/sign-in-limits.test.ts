// Sign-in limits behind a proxy (TRUSTED_PROXY_HOPS=1: the X-Forwarded-For a
// test sends is the address the proxy saw). Better Auth's own limits count
// each client apart, in the database; asking for someone's links from another
// address never locks them out.
import { afterAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { browserFor, signInByEmail } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { actionId } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, TRUSTED_PROXY_HOPS: "1" } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const email = (name: string) => `${name}-${uniqueMarker("m").replace(/\W/g, "").toLowerCase()}@example.com`;
/** A made-up passkey assertion (the sign-in Better Auth's endpoints take), sent from `address`. */
const bogusClick = (address: string) =>
  fetch(new URL("/api/auth/passkey/verify-authentication", app.baseUrl), {
    method: "POST",
    redirect: "manual",
    headers: { "X-Forwarded-For": address, "Content-Type": "application/json", Origin: app.baseUrl },
    body: JSON.stringify({ response: { id: uniqueMarker("bogus").replace(/\W/g, ""), rawId: "x", type: "public-key", response: {} } }),
  }).then((response) => response.status);

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
  test("120 made-up sign-ins from 120 clients leave the real user's sign-in working", async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 120; i++) statuses.add(await bogusClick(`198.51.${100 + Math.floor(i / 200)}.${i + 1}`));
    expect([...statuses]).not.toContain(429);
    expect(await bogusClick("203.0.113.77")).not.toBe(429);
    const to = email("real");
    const browser = browserFor(app.baseUrl);
    await signInByEmail({ app, sink, browser, email: to });
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
