// CREDITS_ENABLED=false through the real server: a submission holds nothing
// and needs no balance, nobody is welcomed, SUCCESS captures nothing, nothing
// shows or sells credits, and the spending caps still bound what is spent. A
// hold taken while credits were on still settles. (With credits on, the
// default, credit-holds.test.ts covers holds.)
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApp, waitFor } from "../support/app";
import { uniqueMarker } from "../support/simulator-control";

// A welcome grant below one 10 s video (22 credits): with credits on, that submission would be a 402.
const WELCOME = 5;
// Gateway credits (0.1408 per second): one owner's 10 s video (1.408) fits, a second does not. The
// tests' visitors share 127.0.0.1, so the address's cap (by default the owner's) is off.
const SPEND_LIMIT = 2;
const app = await startApp({
  env: { CREDITS_ENABLED: "false", CREDITS_WELCOME_GRANT: String(WELCOME), SPEND_LIMIT_CREDITS: String(SPEND_LIMIT), SPEND_LIMIT_ADDRESS_CREDITS: "0" },
});
const { prisma } = await import("@/lib/db");
const { env } = await import("@/lib/env");
const { callbackTokenFor } = await import("@/lib/generations/callback-token");
const { appendEntry, ledgerKey } = await import("@/lib/credits/ledger");

afterAll(() => app.close());
beforeAll(() => app.simulator.reset(100));

type Visitor = ReturnType<typeof app.visitor>;

async function submit(visitor: Visitor, prompt: string, duration: number) {
  const response = await visitor("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration } } });
  return { status: response.status, body: (await response.json()) as { id: string; state: string; error?: { code: string } } };
}

const ledgerOf = async (ownerId: string) => (await prisma.creditEntry.findMany({ where: { ownerId }, orderBy: { id: "asc" } })).map((e) => [e.kind, e.amount, e.generationId]);

const terminal = (id: string) =>
  waitFor(async () => {
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    return row.state === "PENDING" || row.state === "SUBMITTING" ? null : row;
  });

describe("credits off (CREDITS_ENABLED=false)", () => {
  test("a submission with no balance is accepted, holds nothing, and its SUCCESS captures nothing", async () => {
    const visitor = app.visitor();
    const { status, body } = await submit(visitor, `a lighthouse ${uniqueMarker("off")}`, 10);
    expect(status).toBe(201);
    expect(body.state).toBe("PENDING");
    expect(await terminal(body.id)).toMatchObject({ state: "SUCCESS" });
    // The outcome was written (and delivered once) with nothing to settle.
    expect(await prisma.delivery.count({ where: { generationId: body.id, outcome: "APPLIED" } })).toBe(1);
    expect(await ledgerOf(await visitor.ownerId())).toEqual([]);
  });

  test("nothing shows or sells credits: no balance, no estimate, no buying page", async () => {
    const visitor = app.visitor();
    const credits = await visitor("/api/credits");
    expect(credits.status).toBe(404);
    expect(((await credits.json()) as { error: { code: string } }).error.code).toBe("credits_disabled");
    const home = await (await visitor("/")).text();
    expect(home).toContain("Generate video");
    expect(home).not.toContain('data-testid="cost-estimate"');
    expect(home).not.toContain('data-testid="credits-balance"');
    expect((await visitor("/credits")).status).toBe(404);
    expect((await visitor("/credits/success?session_id=cs_test_nothing")).status).toBe(404);
    // Asking for a balance welcomed nobody.
    expect(await ledgerOf(await visitor.ownerId())).toEqual([]);
  });

  test("the spending cap still refuses what would pass it", async () => {
    const visitor = app.visitor();
    expect((await submit(visitor, `first ${uniqueMarker("cap")}`, 10)).status).toBe(201);
    const refused = await submit(visitor, `second ${uniqueMarker("cap")}`, 10);
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe("spend_limit");
  });

  test("a generation that holds credits from before the switch still has its hold captured", async () => {
    const visitor = app.visitor();
    const marker = uniqueMarker("before");
    await app.simulator.scenario({ match: marker, pendingMs: 600_000, callback: { mode: "drop" } });
    const { status, body } = await submit(visitor, `held before ${marker}`, 2);
    expect(status).toBe(201);
    const ownerId = await visitor.ownerId();
    // As a submission made while credits were on left it: a grant, and a hold of 5 credits.
    await prisma.$transaction(async (tx) => {
      await appendEntry(tx, { ownerId, kind: "GRANT", amount: 50, idempotencyKey: `test:grant:${ownerId}` });
      await appendEntry(tx, { ownerId, kind: "HOLD", amount: -5, idempotencyKey: ledgerKey.hold(body.id), generationId: body.id });
    });
    await app.simulator.settle(marker);
    const [task] = await app.simulator.tasks(marker);
    expect(task).toMatchObject({ taskId: expect.any(String), state: "SUCCESS" });
    const row = await prisma.generation.findUniqueOrThrow({ where: { id: body.id } });
    const delivered = await app.fetch(`/api/webhooks/gateway?token=${encodeURIComponent(callbackTokenFor(row.id, env.WEBHOOK_SECRET))}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(task),
    });
    expect(delivered.status).toBe(200);
    expect(await terminal(body.id)).toMatchObject({ state: "SUCCESS" });
    // The simulator charges 0.2816 for 2 s: 4.224 credits, rounded up to the hold; nothing given back.
    expect(await ledgerOf(ownerId)).toEqual([
      ["GRANT", 50, null],
      ["HOLD", -5, body.id],
      ["CAPTURE", 0, body.id],
    ]);
  });
});
