// The welcome grant is bounded per client address, through the real server:
// a guest is a cookie anyone can drop, so fresh cookies from one address are
// welcomed CREDITS_WELCOME_GRANTS_PER_ADDRESS times a day; past that an owner
// is simply not welcomed. Addresses come from X-Forwarded-For (one trusted hop).
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";

const WELCOME = 25;
const PER_ADDRESS = 3;
const app = await startApp({ env: { CREDITS_WELCOME_GRANT: String(WELCOME), CREDITS_WELCOME_GRANTS_PER_ADDRESS: String(PER_ADDRESS), TRUSTED_PROXY_HOPS: "1" } });
const { prisma } = await import("@/lib/db");
const { addressKey } = await import("@/lib/rate-limit");

afterAll(() => app.close());

/** A fresh cookie at `address`: its balance as the header shows it, and its ledger. */
async function freshGuest(address: string) {
  const visitor = app.visitor();
  const headers = { "X-Forwarded-For": address };
  const response = await visitor("/api/credits", { headers });
  expect(response.status).toBe(200);
  const shown = (await response.json()) as { credits: number; held: number };
  // Asked again: an owner past the bound is still not welcomed.
  expect(await (await visitor("/api/credits", { headers })).json()).toEqual(shown);
  const grants = await prisma.creditEntry.count({ where: { ownerId: await visitor.ownerId(), kind: "GRANT" } });
  return { visitor, shown, grants };
}

describe("welcome grants per client address", () => {
  test(`five fresh cookies from one address: ${PER_ADDRESS} welcomed, the others not; another address is`, async () => {
    const guests = [];
    for (let i = 0; i < 5; i++) guests.push(await freshGuest("203.0.113.7"));
    expect(guests.map((g) => g.shown)).toEqual([
      ...Array(PER_ADDRESS).fill({ credits: WELCOME, held: 0 }),
      ...Array(5 - PER_ADDRESS).fill({ credits: 0, held: 0 }),
    ]);
    expect(guests.map((g) => g.grants)).toEqual([1, 1, 1, 0, 0]);

    const other = await freshGuest("198.51.100.9");
    expect(other).toMatchObject({ shown: { credits: WELCOME, held: 0 }, grants: 1 });
  });

  test("an owner past the bound submits nothing (402, no row), and is welcomed in the next window", async () => {
    const address = "203.0.113.99";
    for (let i = 0; i < PER_ADDRESS; i++) await freshGuest(address);
    const { visitor } = await freshGuest(address);
    const headers = { "X-Forwarded-For": address };
    const refused = await visitor("/api/generations", { method: "POST", headers, json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "a lighthouse", duration: 2 } } });
    expect(refused.status).toBe(402);
    const ownerId = await visitor.ownerId();
    expect(await prisma.generation.count({ where: { ownerId } })).toBe(0);

    // A day later, as the rate limiter sees it: the address's window has moved on.
    await prisma.rateLimit.update({ where: { key: `welcome:${addressKey(address)}` }, data: { windowStart: new Date(Date.now() - 2 * 86_400_000) } });
    expect(await (await visitor("/api/credits", { headers })).json()).toEqual({ credits: WELCOME, held: 0 });
    expect(await prisma.creditEntry.count({ where: { ownerId, kind: "GRANT" } })).toBe(1);
  });
});
