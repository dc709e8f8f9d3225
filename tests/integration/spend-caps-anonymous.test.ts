// The caps that bound money for anonymous traffic, through the real routes,
// database and simulator: a client that drops its cookie is a new owner every
// time, never a new address; a signed-in viewer is bounded by their own cap
// instead; and the total cap bounds everyone together. A database of this
// file's own: the total cap sums every row in it.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";

// 5-second 480p videos: 0.704 credits each. Two fit in the cap of 2, seven in the total of 5.
const ESTIMATE = 0.704;
const CAP = 2;
const TOTAL = 5;
const app = await startApp({ env: { SPEND_LIMIT_CREDITS: String(CAP), SPEND_LIMIT_TOTAL_CREDITS: String(TOTAL), SPEND_LIMIT_WINDOW: "day" } });
const { prisma } = await import("@/lib/db");
const { submitGeneration } = await import("@/lib/generations/submit");
const { insertGeneration } = await import("@/lib/generations/store");

afterAll(() => app.close());
// Each test starts with nothing spent (and so does its retry on CI).
beforeEach(async () => {
  await prisma.generation.deleteMany();
});

const MODEL = "alpha-2.5-text-to-video-480p";
const body = (prompt: string) => ({ model: MODEL, input: { prompt } });
/** A client that sends no cookie: every request is a brand-new visitor (proxy.ts mints one). */
const submitWithoutCookie = (prompt: string) =>
  fetch(`${app.baseUrl}/api/generations`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body(prompt)) });
const keepInFlight = (marker: string) => app.simulator.scenario({ match: marker, pendingMs: 60_000, callback: { mode: "drop" } });
const gatewaySubmits = async (marker: string) => (await app.simulator.requests(marker)).filter((r) => r.method === "POST").length;
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe("the address cap (anonymous visitors)", () => {
  test("no cookie, 6 requests from one address: 2 accepted, 4 refused 429 address_spend_limit; what is stored stays within the cap", async () => {
    const marker = uniqueMarker("nocookie");
    await keepInFlight(marker);
    const statuses: number[] = [];
    const refusals: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await submitWithoutCookie(`lantern ${i} ${marker}`);
      statuses.push(response.status);
      if (response.status === 429) refusals.push((await errorOf(response)).code);
    }
    expect(statuses).toEqual([201, 201, 429, 429, 429, 429]);
    expect(refusals).toEqual(Array(4).fill("address_spend_limit"));

    const rows = await prisma.generation.findMany({ where: { prompt: { contains: marker } } });
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.ownerId)).size).toBe(2); // two owners, one address
    expect(new Set(rows.map((r) => r.clientKey)).size).toBe(1);
    expect(rows.reduce((sum, r) => sum + r.costEstimate, 0)).toBeCloseTo(2 * ESTIMATE, 6);
    expect(await gatewaySubmits(marker)).toBe(2);
  });

  test("a visitor who kept their cookie is refused too once their address is full, and is told why", async () => {
    const marker = uniqueMarker("jar");
    await keepInFlight(marker);
    for (let i = 0; i < 2; i++) expect((await submitWithoutCookie(`kite ${i} ${marker}`)).status).toBe(201);
    const visitor = app.visitor();
    const refused = await visitor("/api/generations", { method: "POST", json: body(`kite jar ${marker}`) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await errorOf(refused);
    expect(error.code).toBe("address_spend_limit");
    // What the form shows (the action returns the same message).
    // In the visitors' own credits: 1.408 gateway credits = 21.12 credits (rounded up), of a cap of 2 = 30 credits.
    expect(error.message).toMatch(/^Visitors from your network have used 22 of 30 credits today .*; resets at \d{4}-\d\d-\d\d 00:00 UTC\./);
    expect(error.message).toContain("Nothing was sent to the gateway");
    expect(await gatewaySubmits(marker)).toBe(2);
  });

  test("a signed-in viewer at a full address is bounded by their own cap, not the address's", async () => {
    const marker = uniqueMarker("signed-in");
    await keepInFlight(marker);
    for (let i = 0; i < 2; i++) expect((await submitWithoutCookie(`reed ${i} ${marker}`)).status).toBe(201);
    const [anonymous] = await prisma.generation.findMany({ where: { prompt: { contains: marker } } });
    const visitor = anonymous!.clientKey!; // the same address
    const viewer = { id: `user:${marker}`, signedIn: true };

    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      outcomes.push(
        await submitGeneration({ body: body(`reed user ${i} ${marker}`), visitor, viewer }).then(
          ({ generation }) => generation.state,
          (error: { code: string }) => error.code,
        ),
      );
    }
    expect(outcomes).toEqual(["PENDING", "PENDING", "spend_limit"]);
    const own = await prisma.generation.findMany({ where: { ownerId: viewer.id } });
    expect(own.map((r) => r.clientKey)).toEqual([null, null]);
  });
});

describe("the total cap (everyone together)", () => {
  test("12 concurrent submits from 12 addresses: 7 accepted, 5 refused total_spend_limit; signed-in viewers too", async () => {
    const marker = uniqueMarker("total");
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        insertGeneration({ ownerId: `${marker}-${i}`, clientKey: `${marker}-address-${i}`, costEstimate: ESTIMATE, model: MODEL, prompt: `oak ${i} ${marker}` }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
    const codes = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as { code?: string }).code] : []));
    expect(codes).toEqual(Array(5).fill("total_spend_limit"));
    const stored = await prisma.generation.aggregate({ _sum: { costEstimate: true }, _count: true });
    expect(stored._count).toBe(7);
    expect(stored._sum.costEstimate!).toBeLessThanOrEqual(TOTAL);

    const signedIn = insertGeneration({ ownerId: `user:${marker}`, costEstimate: ESTIMATE, model: MODEL, prompt: `oak user ${marker}` });
    const refusal = await signedIn.then(
      () => undefined,
      (error: { code: string; message: string; status: number; headers?: Record<string, string> }) => error,
    );
    expect(refusal).toMatchObject({ code: "total_spend_limit", status: 429 });
    // What the form shows: when it reopens, never the site's spend.
    expect(refusal!.message).toMatch(/^This site has reached its spending limit for everyone today; new videos can be made again after \d{4}-\d\d-\d\d 00:00 UTC\./);
    expect(refusal!.message).not.toMatch(/\d\.\d/);
    expect(Number(refusal!.headers!["Retry-After"])).toBeGreaterThan(0);
  });
});
