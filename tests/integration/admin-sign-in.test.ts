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
