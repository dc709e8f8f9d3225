// /admin sign-in against guessing: failed attempts are limited per client
// address in the database (so concurrent guesses and every instance count
// together), each failure is logged with the address and never the password,
// and a right password clears its address's count.
import { afterEach, describe, expect, test, vi } from "vitest";

const PASSWORD = "the-right-admin-password-7Qx";
process.env.ADMIN_PASSWORD = PASSWORD;
const { attemptAdminSignIn: attempt, SIGN_IN_ATTEMPTS } = await import("@/lib/viewer/admin");
// Every attempt at the start of the current 15-minute window, so that no test straddles two.
const now = Math.floor(Date.now() / 900_000) * 900_000 + 1_000;
const attemptAdminSignIn = (args: { password: string; address: string }) => attempt({ ...args, now });

const warnings = vi.spyOn(console, "warn").mockImplementation(() => undefined);
afterEach(() => warnings.mockClear());

/** A client address of this test's own (the count is kept per address, in the shared database). */
let next = 0;
const run = Math.floor(Math.random() * 250);
const newAddress = () => `10.${run}.${next++}.1`;
const messages = (outcomes: Awaited<ReturnType<typeof attempt>>[]) => outcomes.map((o) => (o.ok ? "signed in" : o.message));
const WRONG = "That is not the admin password.";
const TOO_MANY = /^Too many failed attempts from your network\. Try again in 15 min\.$/;

describe("admin sign-in attempts", () => {
  test("5 wrong passwords from one address, then refused without checking, even the right one; logged without the password", async () => {
    const address = newAddress();
    const outcomes = [];
    for (let i = 0; i < SIGN_IN_ATTEMPTS + 1; i++) outcomes.push(await attemptAdminSignIn({ password: `guess-number-${i}`, address }));
    outcomes.push(await attemptAdminSignIn({ password: PASSWORD, address }));
    const said = messages(outcomes);
    expect(said.slice(0, SIGN_IN_ATTEMPTS)).toEqual(Array(SIGN_IN_ATTEMPTS).fill(WRONG));
    expect(said.slice(SIGN_IN_ATTEMPTS)).toEqual([expect.stringMatching(TOO_MANY), expect.stringMatching(TOO_MANY)]);

    const logged = warnings.mock.calls.map((call) => call.join(" "));
    expect(logged.filter((line) => line.includes(`admin sign-in failed from ${address}`))).toHaveLength(SIGN_IN_ATTEMPTS);
    expect(logged.filter((line) => line.includes(`admin sign-in refused for ${address}: 6 attempts`))).toHaveLength(1);
    expect(logged.join("\n")).not.toMatch(/guess-number|the-right-admin-password/);
  });

  test("30 concurrent wrong passwords from one address: 5 compared, 25 refused", async () => {
    const address = newAddress();
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => attemptAdminSignIn({ password: `burst-${i}`, address })));
    const said = messages(outcomes);
    expect(said.filter((m) => m === WRONG)).toHaveLength(SIGN_IN_ATTEMPTS);
    expect(said.filter((m) => TOO_MANY.test(m))).toHaveLength(30 - SIGN_IN_ATTEMPTS);
  });

  test("another address is not affected, and the right password clears its address's failures", async () => {
    const blocked = newAddress();
    const attempts = (address: string, password: string) =>
      Promise.all(Array.from({ length: SIGN_IN_ATTEMPTS }, () => attemptAdminSignIn({ password, address })));
    await attempts(blocked, "wrong");
    const address = newAddress();
    expect(messages([await attemptAdminSignIn({ password: "typo", address })])).toEqual([WRONG]);
    expect(await attemptAdminSignIn({ password: PASSWORD, address })).toEqual({ ok: true });
    // Cleared: a full allowance of mistakes again.
    expect(messages(await attempts(address, "typo again"))).toEqual(Array(SIGN_IN_ATTEMPTS).fill(WRONG));
  });
});

describe("guesses spread over many addresses", () => {
  test("past SIGN_IN_ATTEMPTS_ALL passwords compared in a window from every address together, every address is refused, the right password too", async () => {
    const { SIGN_IN_ATTEMPTS_ALL } = await import("@/lib/viewer/admin");
    const { prisma } = await import("@/lib/db");
    const ONE_SERVER = /^Too many failed attempts on this server\. Try again in \d+ min\.$/;
    // One wrong password from each of more addresses than the bound, at once (a botnet's spread).
    const outcomes = await Promise.all(Array.from({ length: SIGN_IN_ATTEMPTS_ALL + 10 }, (_, i) => attemptAdminSignIn({ password: `spread-${i}`, address: newAddress() })));
    const said = messages(outcomes);
    expect(said.filter((m) => m === WRONG).length).toBeLessThanOrEqual(SIGN_IN_ATTEMPTS_ALL);
    expect(said.filter((m) => ONE_SERVER.test(m)).length).toBeGreaterThanOrEqual(10);
    expect(messages([await attemptAdminSignIn({ password: PASSWORD, address: newAddress() })])).toEqual([expect.stringMatching(ONE_SERVER)]);
    expect(warnings.mock.calls.map((call) => call.join(" ")).join("\n")).toContain("admin sign-in refused for every address");
    // The next window (or another test) starts afresh.
    await prisma.rateLimit.deleteMany({ where: { key: "admin-sign-in:all" } });
  });
});

describe("the admin cookie", () => {
  test("its MAC is keyed by the server's secret as well as the password: a captured cookie tests no password guess offline", async () => {
    const { createHmac } = await import("node:crypto");
    const { signAdminSession, verifyAdminSession } = await import("@/lib/viewer/admin");
    const cookie = signAdminSession(PASSWORD, now);
    const [expires, signature] = cookie.split(".") as [string, string];
    expect(verifyAdminSession(cookie, PASSWORD, now)).toBe(true);
    // What someone holding the cookie computes for a guess, knowing the scheme (this file) but not the server's secret.
    const guessed = (password: string, secret?: string) => {
      const key = secret === undefined
        ? createHmac("sha256", password).update("framehook admin session v1").digest()
        : createHmac("sha256", secret).update("framehook admin session v2\0").update(password).digest();
      return createHmac("sha256", key).update(expires).digest("base64url");
    };
    expect(guessed(PASSWORD)).not.toBe(signature);
    expect(guessed(PASSWORD, "some-other-server-secret-0123456789abcdef")).not.toBe(signature);
    expect(verifyAdminSession(`${expires}.${guessed(PASSWORD)}`, PASSWORD, now)).toBe(false);
  });
});
