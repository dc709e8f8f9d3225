// What an operator sets for accounts: REQUIRE_SIGN_IN (guests look, accounts
// create), a guest spending cap lower than an account's, and the admin role
// for the emails in ADMIN_EMAILS.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";

const sink = await startMailSink();
// Alpha 2.5 costs 0.1408 a second: a 2 s video is estimated at 0.2816, so a guest's 0.5 fits one and an account's 10 many.
const app = await startApp({
  env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0", SPEND_LIMIT_CREDITS: "10", SPEND_LIMIT_GUEST_CREDITS: "0.5", SPEND_LIMIT_ADDRESS_CREDITS: "100", ADMIN_EMAILS: "Boss@example.com" },
});
const strict = await startApp({ env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0", REQUIRE_SIGN_IN: "true" } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await Promise.all([app.close(), strict.close()]);
  await sink.close();
});

const submit = (b: Browser) =>
  b("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "policy", duration: 2 } } });

describe("spending caps", () => {
  test("a guest is capped at SPEND_LIMIT_GUEST_CREDITS, an account at SPEND_LIMIT_CREDITS", async () => {
    const guest = browserFor(app.baseUrl);
    await guest("/");
    expect((await submit(guest)).status).toBe(201);
    const refused = await submit(guest);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("spend_limit");
    expect(((await (await guest("/api/spend")).json()) as { spend: { limit: number } }).spend.limit).toBe(0.5);

    const member = browserFor(app.baseUrl);
    await member("/");
    await signInByEmail({ app, sink, browser: member, email: "member@example.com" });
    expect([(await submit(member)).status, (await submit(member)).status]).toEqual([201, 201]);
    expect(((await (await member("/api/spend")).json()) as { spend: { limit: number } }).spend.limit).toBe(10);
  });
});

describe("REQUIRE_SIGN_IN", () => {
  test("a guest may look but not generate or upload; after signing in, the same browser may", async () => {
    const b = browserFor(strict.baseUrl);
    expect((await b("/")).status).toBe(200);
    const before = await prisma.generation.count();
    const refused = await submit(b);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("sign_in_required");
    const upload = await b("/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url", {
      method: "POST",
      headers: { "Content-Type": "image/png" },
      body: new Uint8Array(64),
    });
    expect(upload.status).toBe(401);
    expect(await prisma.generation.count()).toBe(before);

    await signInByEmail({ app: strict, sink, browser: b, email: "strict@example.com" });
    expect((await submit(b)).status).toBe(201);
  });
});

describe("admin role", () => {
  test("an account whose email is in ADMIN_EMAILS opens /admin; another account gets the sign-in hint, not the data", async () => {
    const boss = browserFor(app.baseUrl);
    await boss("/");
    await signInByEmail({ app, sink, browser: boss, email: "boss@example.com" });
    const page = await (await boss("/admin")).text();
    expect(page).toContain("Spend per owner");

    const other = browserFor(app.baseUrl);
    await other("/");
    await signInByEmail({ app, sink, browser: other, email: "not-boss@example.com" });
    const refused = await (await other("/admin")).text();
    expect(refused).not.toContain("Spend per owner");
    expect(refused).toContain("with an admin account");

    // Support reads owners by their email where they have an account, and finds them by it.
    const made = (await (await submit(other)).json()) as { id: string };
    const ownerId = (await prisma.generation.findUniqueOrThrow({ where: { id: made.id } })).ownerId;
    const named = await (await boss("/admin")).text();
    expect(named).toMatch(new RegExp(`not-boss@example\\.com</span><span[^>]*>${ownerId}<`));
    const found = await (await boss("/admin?q=NOT-boss%40example.com")).text();
    expect(found).toContain(made.id);
    const nobody = await (await boss("/admin?q=nobody%40example.com")).text();
    expect(nobody).not.toContain(made.id);
  });
});
