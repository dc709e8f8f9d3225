// Free credits are bounded for the operator, not only per address: the
// instance-wide daily ceiling on welcome grants (CREDITS_WELCOME_GRANTS_PER_DAY)
// and IPv6 counted per /48. Real parts: the app under `next start` behind one
// trusted proxy hop (each client is the X-Forwarded-For entry this test
// writes, as a proxy would), new visitors (fresh cookies) asking for their balance.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";

const WELCOME = 25;
const app = await startApp({
  env: {
    TRUSTED_PROXY_HOPS: "1",
    CREDITS_WELCOME_GRANT: String(WELCOME),
    CREDITS_WELCOME_GRANTS_PER_ADDRESS: "3",
    CREDITS_WELCOME_GRANTS_PER_DAY: "5",
  },
});
const { prisma } = await import("@/lib/db");
const { readWelcomeCeiling } = await import("@/lib/credits/welcome-ceiling");

afterAll(() => app.close());

/** A new visitor (fresh cookie) from `client`: the balance GET /api/credits shows them. */
async function newVisitor(client: string) {
  const visitor = app.visitor();
  const response = await visitor("/api/credits", { headers: { "X-Forwarded-For": client } });
  expect(response.status).toBe(200);
  return { ...((await response.json()) as { credits: number; held: number; welcome?: string }), ownerId: await visitor.ownerId() };
}

const grants = () => prisma.creditEntry.count({ where: { kind: "GRANT" } });

describe("welcome grants", () => {
  test("IPv6 is counted per /48: four new visitors from four /64s of one /48 are one client, the fourth not welcomed", async () => {
    const seen = [];
    for (let i = 1; i <= 4; i++) seen.push(await newVisitor(`2001:db8:1:${i.toString(16)}::${i}`));
    expect(seen.map((s) => s.credits)).toEqual([WELCOME, WELCOME, WELCOME, 0]);
    // Not welcomed by the address's bound: the ceiling (5) is not reached, so nothing says so.
    expect(seen[3]!.welcome).toBeUndefined();
    expect((await readWelcomeCeiling()).used).toBe(3);
  });

  test("the instance's daily ceiling: 6 new visitors from 6 other /48s at once, only 2 welcomed (5 in all); the rest get 0 and are told why", async () => {
    const seen = await Promise.all(Array.from({ length: 6 }, (_, i) => newVisitor(`2001:db8:${(0x100 + i).toString(16)}::1`)));
    expect(seen.filter((s) => s.credits === WELCOME)).toHaveLength(2);
    const unwelcomed = seen.filter((s) => s.credits === 0);
    expect(unwelcomed).toHaveLength(4);
    for (const s of unwelcomed) expect(s.welcome).toBe("ceiling");
    expect(await grants()).toBe(5);
    expect(await readWelcomeCeiling()).toMatchObject({ limit: 5, used: 5 });

    // Reading again, or from IPv4, changes nothing: nobody new is welcomed today.
    expect(await newVisitor("198.51.100.7")).toMatchObject({ credits: 0, welcome: "ceiling" });
    const again = await app.visitor()("/api/credits", { headers: { "X-Forwarded-For": "198.51.100.7" } });
    expect(((await again.json()) as { credits: number }).credits).toBe(0);
    expect(await grants()).toBe(5);
  });

  test("a not-welcomed visitor's first submission is refused 402 with nothing stored", async () => {
    const visitor = app.visitor();
    const response = await visitor("/api/generations", {
      method: "POST",
      headers: { "X-Forwarded-For": "203.0.113.9" },
      json: { model: "alpha-2.5-text-to-video-480p", input: { prompt: "a quiet pier", duration: 2 } },
    });
    expect(response.status).toBe(402);
    expect(await prisma.generation.count({ where: { ownerId: await visitor.ownerId() } })).toBe(0);
    expect(await grants()).toBe(5);
  });
});
