// The ledger's rules on the engine under test (lib/credits): the welcome grant
// once per owner however many first views race, holds refused past the
// balance, a release once, the operator's adjustments, and the history.
import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { testEngine } from "../support/test-database";

// A small grant, whatever the test environment gives (read when lib/env is first imported, below).
const DEFAULT_WELCOME_GRANT = 25;
process.env.CREDITS_WELCOME_GRANT = String(DEFAULT_WELCOME_GRANT);
const { prisma } = await import("@/lib/db");
const { creditBalance, showCreditBalance } = await import("@/lib/credits/balance");
const { creditHold, releaseHoldIn } = await import("@/lib/credits/ledger");
const { adjustCredits } = await import("@/lib/credits/adjust");
const { listCreditHistory } = await import("@/lib/credits/history");
const { isRetryableTransaction, retryTransaction } = await import("@/lib/database/errors");
type Transaction = import("@/lib/db").Transaction;

const owner = () => `ledger-${randomUUID()}`;
/** One client address for every owner here: the bound on welcome grants per address is off in tests (tests/integration/credit-welcome.test.ts sets it). */
const ADDRESS = "test-address";
const ledgerOf = async (ownerId: string) =>
  (await prisma.creditEntry.findMany({ where: { ownerId }, orderBy: { id: "asc" } })).map((e) => [e.kind, e.amount, e.idempotencyKey]);

/**
 * As the generation store runs its insert: a transaction tried again while the database is busy. The bounds are a
 * loaded machine's (the store's are 5 s to start and 10 s of retries): many of these race for one owner's lock here.
 */
const asStore = <T>(work: (tx: Transaction) => Promise<T>) =>
  retryTransaction(() => prisma.$transaction(work, { maxWait: 30_000, timeout: 30_000 }), { waitMs: 60_000 });

/** A hold as the generation store takes it for a comparison: check, then record, in one transaction. */
const hold = (ownerId: string, credits: number, generationId = `gen-${randomUUID()}`) =>
  asStore(async (tx) => {
    const h = creditHold({ ownerId, visitor: ADDRESS, credits });
    await h.check(tx);
    await h.record(tx, generationId);
    return generationId;
  });

/**
 * A single submission's hold as the generation store takes it: the owner's lock, the generation's insert (here a
 * row of another owner's takes its place, so that the transaction writes as the store's does), then `take`.
 */
const take = (ownerId: string, credits: number, generationId = `gen-${randomUUID()}`) =>
  asStore(async (tx) => {
    const h = creditHold({ ownerId, visitor: ADDRESS, credits });
    await h.lock(tx);
    await tx.generation.create({ data: { id: generationId, model: "test", prompt: "", input: "{}", ownerId: "ledger-test-rows", costEstimate: 0 } });
    await h.take(tx, generationId);
    return generationId;
  });

describe(`the ledger (${testEngine()})`, () => {
  test("the welcome grant: made once, whatever how many first views race", async () => {
    const ownerId = owner();
    const shown = await Promise.all(Array.from({ length: 8 }, () => showCreditBalance({ ownerId, visitor: ADDRESS })));
    expect(shown).toEqual(Array(8).fill({ credits: DEFAULT_WELCOME_GRANT, held: 0 }));
    expect(await ledgerOf(ownerId)).toEqual([["GRANT", DEFAULT_WELCOME_GRANT, `grant:welcome:${ownerId}`]]);
  });

  test("a guest's welcome grant moved to an account counts as the account's", async () => {
    const guest = owner();
    const account = `user:${randomUUID()}`;
    await showCreditBalance({ ownerId: guest, visitor: ADDRESS });
    // What the guest → account claim does with the guest's rows.
    await prisma.creditEntry.updateMany({ where: { ownerId: guest }, data: { ownerId: account } });
    expect(await showCreditBalance({ ownerId: account, visitor: ADDRESS })).toEqual({ credits: DEFAULT_WELCOME_GRANT, held: 0 });
    expect(await prisma.creditEntry.count({ where: { ownerId: account } })).toBe(1);
  });

  test("holds take the welcome grant first, refuse past the balance with 402, and show as held", async () => {
    const ownerId = owner();
    const first = await hold(ownerId, 11);
    await hold(ownerId, 11);
    const refused = await hold(ownerId, 11).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "insufficient_credits", status: 402 });
    expect((refused as Error).message).toContain("/credits");
    expect(await showCreditBalance({ ownerId, visitor: ADDRESS })).toEqual({ credits: DEFAULT_WELCOME_GRANT - 22, held: 22 });

    // A release gives the hold back once, and it no longer counts as held.
    expect(await prisma.$transaction((tx) => releaseHoldIn(tx, { generationId: first, ownerId }))).toBe(11);
    expect(await prisma.$transaction((tx) => releaseHoldIn(tx, { generationId: first, ownerId }))).toBe(0);
    expect(await showCreditBalance({ ownerId, visitor: ADDRESS })).toEqual({ credits: DEFAULT_WELCOME_GRANT - 11, held: 11 });
    expect((await ledgerOf(ownerId)).map(([kind, amount]) => [kind, amount])).toEqual([
      ["GRANT", DEFAULT_WELCOME_GRANT],
      ["HOLD", -11],
      ["HOLD", -11],
      ["RELEASE", 11],
    ]);
  });

  test("concurrent holds against a balance that fits K of them: exactly K, never below zero", async () => {
    const ownerId = owner();
    await adjustCredits({ ownerId, amount: 50 - DEFAULT_WELCOME_GRANT, reason: "test balance" });
    expect(await showCreditBalance({ ownerId, visitor: ADDRESS })).toMatchObject({ credits: 50 });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => hold(ownerId, 11)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "insufficient_credits" });
    expect(await creditBalance(ownerId)).toBe(6);
  });

  test("a single submission's hold: concurrent ones, beside comparisons' and the operator's takes, never take the balance below zero", async () => {
    const ownerId = owner();
    await adjustCredits({ ownerId, amount: 100 - DEFAULT_WELCOME_GRANT, reason: "test balance" });
    expect(await showCreditBalance({ ownerId, visitor: ADDRESS })).toMatchObject({ credits: 100 });
    // 12 submissions of 11, 3 comparisons' holds of 11 and 2 takes of 3 by the operator race for 100 credits.
    const results = await Promise.allSettled([
      ...Array.from({ length: 12 }, () => take(ownerId, 11)),
      ...Array.from({ length: 3 }, () => hold(ownerId, 11)),
      ...Array.from({ length: 2 }, () => adjustCredits({ ownerId, amount: -3, reason: "test take" })),
    ]);
    const holdsRefused = results.slice(0, 15).filter((r) => r.status === "rejected");
    for (const r of holdsRefused) expect(r.reason).toMatchObject({ code: "insufficient_credits" });
    // The operator's form waits 5 s for a busy database, then says so (nothing written): on a loaded machine, so be it.
    const takesRefused = results.slice(15).filter((r) => r.status === "rejected" && !isRetryableTransaction(r.reason));
    for (const r of takesRefused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });
    const rows = await ledgerOf(ownerId);
    const holds = rows.filter(([kind]) => kind === "HOLD").length;
    const takes = rows.filter(([kind, amount]) => kind === "ADJUSTMENT" && amount === -3).length;
    // Whatever the order, each write refused found too little for itself: what is left is below 11 (a hold was refused), below 3 if a take was.
    const left = await creditBalance(ownerId);
    expect(left).toBe(100 - 11 * holds - 3 * takes);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(holds + takes).toBe(results.filter((r) => r.status === "fulfilled").length);
    expect(holdsRefused.length).toBeGreaterThan(0);
    expect(left).toBeLessThan(takesRefused.length > 0 ? 3 : 11);
    // A refused submission wrote nothing: no hold without its generation.
    const generations = await prisma.generation.count({ where: { id: { in: rows.filter(([kind]) => kind === "HOLD").map(([, , key]) => String(key).slice("hold:".length)) } } });
    expect(generations).toBe(results.slice(0, 12).filter((r) => r.status === "fulfilled").length);
  });

  test("a single submission's hold makes the welcome grant an owner never had, even one with credits of their own", async () => {
    const ownerId = owner();
    await adjustCredits({ ownerId, amount: 30, reason: "credits before any welcome" });
    const generationId = await take(ownerId, 11);
    expect(await ledgerOf(ownerId)).toEqual([
      ["ADJUSTMENT", 30, expect.stringMatching(/^adjustment:/)],
      ["GRANT", DEFAULT_WELCOME_GRANT, `grant:welcome:${ownerId}`],
      ["HOLD", -11, `hold:${generationId}`],
    ]);
    // Once welcomed, the next hold is written by its one statement, with the generation it holds for.
    const next = await take(ownerId, 11);
    expect(await prisma.creditEntry.findUniqueOrThrow({ where: { idempotencyKey: `hold:${next}` } })).toMatchObject({ kind: "HOLD", amount: -11, generationId: next, ownerId });
    expect(await creditBalance(ownerId)).toBe(30 + DEFAULT_WELCOME_GRANT - 22);
  });

  test("a single submission's hold past the balance is a 402 that says what is there; for a deleted account, a refusal; either way nothing is written", async () => {
    const ownerId = owner();
    await showCreditBalance({ ownerId, visitor: ADDRESS });
    const refused = await take(ownerId, DEFAULT_WELCOME_GRANT + 1).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "insufficient_credits", status: 402 });
    expect((refused as Error).message).toContain(`you have ${DEFAULT_WELCOME_GRANT} credits`);
    expect(await ledgerOf(ownerId)).toEqual([["GRANT", DEFAULT_WELCOME_GRANT, `grant:welcome:${ownerId}`]]);

    // An account deleted while its submission was on its way: its credits (were any left) are not spent.
    const userId = randomUUID();
    const account = `user:${userId}`;
    await showCreditBalance({ ownerId: account, visitor: ADDRESS });
    await prisma.deletedAccount.create({ data: { userId } });
    const generationId = `gen-${randomUUID()}`;
    await expect(take(account, 11, generationId)).rejects.toMatchObject({ code: "unauthorized" });
    expect(await prisma.creditEntry.count({ where: { ownerId: account, kind: "HOLD" } })).toBe(0);
    expect(await prisma.generation.count({ where: { id: generationId } })).toBe(0);
  });

  test("the operator's adjustments: grant, take, refuse a take past the balance, and a repeated form once", async () => {
    const ownerId = owner();
    expect(await adjustCredits({ ownerId, amount: 40, reason: "apology for an outage", idempotencyKey: "form-1" })).toEqual({ applied: true, balance: 40 });
    expect(await adjustCredits({ ownerId, amount: 40, reason: "apology for an outage", idempotencyKey: "form-1" })).toEqual({ applied: false, balance: 40 });
    expect(await adjustCredits({ ownerId, amount: -15, reason: "chargeback" })).toEqual({ applied: true, balance: 25 });
    await expect(adjustCredits({ ownerId, amount: -26, reason: "too much" })).rejects.toMatchObject({ code: "conflict" });
    await expect(adjustCredits({ ownerId, amount: 1.5, reason: "half" })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(adjustCredits({ ownerId, amount: 5, reason: " " })).rejects.toMatchObject({ code: "invalid_input" });
    expect(await ledgerOf(ownerId)).toEqual([
      ["ADJUSTMENT", 40, "adjustment:form-1"],
      ["ADJUSTMENT", -15, expect.stringMatching(/^adjustment:/)],
    ]);
  });

  test("the history: newest first, a hold pending until settled, a capture with what it cost", async () => {
    const ownerId = owner();
    const captured = await hold(ownerId, 11);
    const open = await hold(ownerId, 5);
    // A capture as the outcome write stores it: the 3 credits of the hold the generation did not cost come back.
    await prisma.creditEntry.create({ data: { ownerId, kind: "CAPTURE", amount: 3, idempotencyKey: `capture:${captured}`, generationId: captured, settles: captured } });

    const history = await listCreditHistory({ ownerId });
    expect(history.map((e) => [e.kind, e.amount, e.generationId, e.pending, e.charged])).toEqual([
      ["CAPTURE", 3, captured, undefined, 8],
      ["HOLD", -5, open, true, undefined],
      ["HOLD", -11, captured, false, undefined],
      ["GRANT", DEFAULT_WELCOME_GRANT, null, undefined, undefined],
    ]);
    expect(await showCreditBalance({ ownerId, visitor: ADDRESS })).toEqual({ credits: DEFAULT_WELCOME_GRANT - 8 - 5, held: 5 });
  });
});
